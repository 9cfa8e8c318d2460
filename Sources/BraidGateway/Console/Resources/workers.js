// Workers: lag per partition with rates, dead letters with their last reasons, snapshot
// counts and ages, from GET /v1/admin/workers, refreshed every few seconds.
async function renderWorkers(main, generation) {
  const box = el('div', { id: 'workers' });
  const updated = el('div', { class: 'meta', id: 'workers-updated' });
  main.append(updated, box);
  const table = (headers, rows, attrs) => el('table', attrs || {},
    el('tr', {}, headers.map(h => el('th', { text: h }))), rows);
  async function refresh() {
    const s = await getJSON('/v1/admin/workers');
    if (generation !== Console.generation) return;
    const parts = [];
    for (const g of s.groups) {
      parts.push(el('h3', { text: 'Consumer group ' + g.group + ' on ' + g.topic + ' · lag ' + g.total_lag + ' · ' + rate(g.consumed_per_second) + ' msg/s' }));
      parts.push(table(['partition', 'committed', 'high watermark', 'lag', 'consumed/s', 'produced/s'], g.partitions.map(p =>
        el('tr', { class: 'partition', 'data-partition': p.partition, 'data-lag': p.lag },
          el('td', { text: p.partition }), el('td', { text: p.committed === null || p.committed === undefined ? '–' : p.committed }),
          el('td', { text: p.high_watermark }), el('td', { text: p.lag }), el('td', { text: rate(p.consumed_per_second) }),
          el('td', { text: rate(p.produced_per_second) }))), { class: 'lag', 'data-group': g.group, 'data-topic': g.topic }));
    }
    if (s.dead_letters) {
      const d = s.dead_letters;
      parts.push(el('h3', { text: 'Dead letters in ' + d.topic + ' · ' + d.total }));
      parts.push(table(['partition', 'count'], d.partitions.map(p => el('tr', {}, el('td', { text: p.partition }), el('td', { text: p.count }))), { class: 'dlq-counts' }));
      parts.push(table(['failed at', 'partition/offset', 'attempts', 'reason', 'source', 'key'], d.recent.map(l =>
        el('tr', { class: 'dead-letter' }, el('td', { class: 'text', text: l.failed_at }), el('td', { text: l.partition + '/' + l.offset }),
          el('td', { text: l.attempts }), el('td', { class: 'text reason', text: l.reason, title: l.reason }),
          el('td', { class: 'text', text: l.source }), el('td', { class: 'text', text: l.key || '–' }))), { class: 'dlq-recent' }));
    }
    if (s.snapshots) {
      parts.push(el('h3', { text: 'Snapshots in Redis' + (s.snapshots.truncated ? ' (first ' + s.snapshots.scanned + ' pointers)' : '') }));
      parts.push(table(['ranking', 'snapshots', 'newest', 'oldest', 'older than refresh age', 'refresh after'], s.snapshots.rankings.map(r =>
        el('tr', { class: 'ranking', 'data-ranking': r.ranking, 'data-count': r.count }, el('td', { class: 'text', text: r.ranking }),
          el('td', { text: r.count }), el('td', { text: age(r.newest_age_seconds) }), el('td', { text: age(r.oldest_age_seconds) }),
          el('td', { text: r.stale }), el('td', { text: r.refresh_after_seconds === null || r.refresh_after_seconds === undefined ? '–' : age(r.refresh_after_seconds) }))),
        { class: 'snapshots' }));
    }
    if (s.errors.length) parts.push(el('ul', { class: 'errors' }, s.errors.map(e => el('li', { text: e }))));
    box.replaceChildren(...parts);
    updated.textContent = 'updated ' + new Date(s.sampled_at * 1000).toLocaleTimeString() + ' · refreshes every 3 s';
    main.dataset.ready = 'true';
    main.dataset.refreshes = String(Number(main.dataset.refreshes || 0) + 1);
  }
  await refresh();
  every(3000, () => refresh().catch(e => status(e.message)));
}
