// Search preview: the interleaved list as /v1/search returns it, page by page through the
// real cursor, each item in its team's colour, with A and B alone beside it.
async function renderSearch(main, generation) {
  const overview = Console.overview;
  const q = el('input', { name: 'q', value: 'curry rice', size: 24 });
  const ranking = select('ranking', overview.rankings.map(r => [r.name, r.name]), overview.default_ranking);
  const arm = select('arm', [['', '(no session)']].concat(
    overview.arms.map(a => [a.sample_session || '', a.name + ' · ' + a.mode + ' · ' + a.weight + '%'])));
  const perPage = el('input', { name: 'per_page', type: 'number', min: 1, max: 100, value: 10, style: { width: '5em' } });
  const view = select('view', [['interleaved', 'interleaved'], ['sides', 'A | interleaved | B']], 'interleaved');
  const form = el('form', { class: 'bar', id: 'search-form' },
    field('query', q), field('ranking', ranking), field('arm (session)', arm), field('per page', perPage), field('show', view),
    el('button', { type: 'submit', text: 'Search' }));
  const legend = el('div', { class: 'legend', id: 'legend' });
  const info = el('div', { class: 'meta', id: 'search-info' });
  const list = el('ol', { class: 'results', id: 'interleaved' });
  const more = el('button', { id: 'next-page', type: 'button', text: 'Next page', disabled: 'disabled' });
  const columnA = el('ol', { class: 'results', id: 'side-a' });
  const columnB = el('ol', { class: 'results', id: 'side-b' });
  const sideInfo = { a: el('div', { class: 'meta' }), b: el('div', { class: 'meta' }) };
  const columns = el('div', { class: 'columns' },
    el('div', { class: 'column', id: 'column-a', hidden: 'hidden' }, el('h3', { text: 'A · live ranking alone' }), sideInfo.a, columnA),
    el('div', { class: 'column' }, el('h3', { text: 'Interleaved (GET /v1/search)' }), list, more),
    el('div', { class: 'column', id: 'column-b', hidden: 'hidden' }, el('h3', { text: 'B · cached ranking alone' }), sideInfo.b, columnB));
  main.append(form, legend, info, columns);

  let state = null;
  function setView() {
    const sides = view.value === 'sides';
    columns.classList.toggle('three', sides);
    document.getElementById('column-a').hidden = !sides;
    document.getElementById('column-b').hidden = !sides;
  }
  view.addEventListener('change', () => { setView(); if (state) drawSides(); });

  async function drawSides() {
    if (view.value !== 'sides' || !state) return;
    const size = Math.min(100, state.perPage * state.pages);
    const sides = await getJSON('/v1/admin/sides?' + query({ q: state.q, ranking: state.ranking, size, version: state.snapshot }));
    const placed = new Set(state.items.map(i => i.id));
    const row = (doc, index, team) => el('li', {
      class: 'item' + (placed.has(doc.id) ? ' placed' : ''), 'data-id': doc.id, style: { '--team': teamColor(team) } },
      el('span', { class: 'pos', text: index }), el('span', { text: doc.title || doc.id }));
    columnA.replaceChildren(...sides.a.items.map((doc, i) => row(doc, i, 0)));
    columnB.replaceChildren(...sides.b.items.map((doc, i) => row(doc, i, 1)));
    sideInfo.a.textContent = 'first ' + sides.a.items.length + ' of ' + sides.a.total + ' hits; faded: already on the pages shown';
    sideInfo.b.textContent = sides.b.version === null ? 'no snapshot' :
      'snapshot ' + sides.b.version + ', ' + sides.b.document_count + ' documents, age ' + age(sides.b.age_seconds);
    return sides;
  }

  async function load(first) {
    const params = first
      ? { q: q.value, per_page: perPage.value, ranking: ranking.value, session: arm.value }
      : { q: state.q, cursor: state.cursor, ranking: state.ranking, session: state.session };
    const page = await getJSON('/v1/search?' + query(params));
    if (generation !== Console.generation) return;
    if (first) {
      state = { q: q.value, ranking: ranking.value, session: arm.value, perPage: page.per_page, pages: 0, items: [],
                snapshot: page.interleaving.snapshot, teams: page.interleaving.multileave ? page.interleaving.multileave.length + 1 : 2 };
      list.replaceChildren();
      legend.replaceChildren(...Array.from({ length: state.teams }, (_, t) =>
        el('span', { style: { background: teamColor(t) }, text: teamName(t, state.teams) + (t === 0 ? ' live' : ' ' + (page.interleaving.multileave ? page.interleaving.multileave[t - 1] : page.interleaving.ranking || '')) })));
    }
    state.pages += 1;
    state.cursor = page.next_cursor;
    const first_ = page.items.length ? page.items[0].position : null;
    const last_ = page.items.length ? page.items[page.items.length - 1].position : null;
    list.append(el('li', { class: 'boundary', 'data-page': page.page },
      'page ' + page.page + ' · per_page ' + page.per_page + ' · positions ' + first_ + '–' + last_ +
      (page.degraded ? ' · DEGRADED (live only)' : '')));
    for (const item of page.items) {
      const team = teamIndex(item);
      state.items.push(item);
      list.append(el('li', { class: 'item', 'data-id': item.id, 'data-team': item.team, 'data-team-index': team,
                             'data-position': item.position, 'data-page': page.page, style: { '--team': teamColor(team) } },
        el('span', { class: 'pos', text: item.position }),
        el('span', { class: 'team', text: teamName(team, state.teams) }),
        el('span', { text: item.title || item.id }),
        el('span', { class: 'meta', text: item.id + ' · ' + item.source })));
    }
    if (page.next_cursor) more.removeAttribute('disabled'); else more.setAttribute('disabled', 'disabled');
    const arms = page.interleaving;
    let snapshotText = arms.snapshot === null ? 'no snapshot (live only)' : 'snapshot ' + arms.snapshot;
    if (arms.snapshot !== null) {
      const sides = await getJSON('/v1/admin/sides?' + query({ q: state.q, ranking: state.ranking, size: 1, version: arms.snapshot }));
      snapshotText += ' · age ' + age(sides.b.age_seconds);
    }
    info.textContent = 'arm ' + (arms.arm || 'default') + ' · ranking ' + (arms.multileave ? arms.multileave.join(', ') : arms.ranking) +
      ' · mode ' + arms.mode + (arms.mode === 'pattern' ? ' ' + arms.pattern : '') + ' · start ' + arms.start + ' · ' + snapshotText +
      (page.total !== null && page.total !== undefined ? ' · total ' + page.total : '');
    info.dataset.snapshot = arms.snapshot === null ? '' : arms.snapshot;
    await drawSides();
    main.dataset.ready = 'true';
  }

  form.addEventListener('submit', event => { event.preventDefault(); main.dataset.ready = 'false'; load(true).catch(e => status(e.message)); });
  more.addEventListener('click', () => { main.dataset.ready = 'false'; load(false).catch(e => status(e.message)); });
  setView();
  await load(true);
}
