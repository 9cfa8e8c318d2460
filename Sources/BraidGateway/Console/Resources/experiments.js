// Experiments: each team-draft arm's outcome (GET /v1/experiments/{id}) and its preference
// over time from the gateway's in-process samples, drawn as an inline SVG; then each layout
// experiment's outcome (the same route, under `layout`): its variants per user and every pair.
function chart(samples) {
  const width = 560, height = 180, pad = 30;
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('class', 'chart'); svg.setAttribute('width', width); svg.setAttribute('height', height);
  svg.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
  const add = (tag, attrs) => { const n = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v); svg.append(n); return n; };
  if (samples.length === 0) { add('text', { x: pad, y: height / 2, fill: '#6b7380' }).textContent = 'no samples yet'; return svg; }
  const t0 = samples[0].at, t1 = Math.max(samples[samples.length - 1].at, t0 + 1);
  const lo = Math.min(-0.1, ...samples.map(s => s.ci_lower)), hi = Math.max(0.1, ...samples.map(s => s.ci_upper));
  const x = t => pad + (t - t0) / (t1 - t0) * (width - 2 * pad);
  const y = v => height - pad - (v - lo) / (hi - lo) * (height - 2 * pad);
  const band = samples.map(s => x(s.at) + ',' + y(s.ci_upper)).concat(samples.slice().reverse().map(s => x(s.at) + ',' + y(s.ci_lower)));
  add('polygon', { points: band.join(' '), fill: '#e07b1a33', stroke: 'none' });
  add('line', { x1: pad, x2: width - pad, y1: y(0), y2: y(0), stroke: '#8a93a3', 'stroke-dasharray': '4 3' });
  add('polyline', { points: samples.map(s => x(s.at) + ',' + y(s.delta)).join(' '), fill: 'none', stroke: '#e07b1a', 'stroke-width': 2 });
  for (const s of samples) add('circle', { cx: x(s.at), cy: y(s.delta), r: 2, fill: '#e07b1a', class: 'sample' });
  add('text', { x: 4, y: y(hi) + 4, 'font-size': 10 }).textContent = hi.toFixed(2);
  add('text', { x: 4, y: y(lo) + 4, 'font-size': 10 }).textContent = lo.toFixed(2);
  add('text', { x: 4, y: y(0) + 4, 'font-size': 10 }).textContent = '0';
  add('text', { x: pad, y: height - 8, 'font-size': 10 }).textContent = new Date(t0 * 1000).toLocaleTimeString();
  add('text', { x: width - pad - 60, y: height - 8, 'font-size': 10 }).textContent = new Date(t1 * 1000).toLocaleTimeString();
  add('text', { x: width - pad - 200, y: 14, 'font-size': 11 }).textContent = 'Δ (B over A) with its 95 % interval';
  return svg;
}

// What was not credited: duplicates (retries, replays), events read too late, and events the
// gateway refused by reason; a stuffing attempt shows here, not in the wins.
function evidence(outcome) {
  const rejected = outcome.rejected || {};
  const parts = Object.keys(rejected).sort().map(reason => reason.replace(/_/g, ' ') + ' ' + rejected[reason]);
  return el('div', { class: 'meta evidence', 'data-duplicates': outcome.duplicates || 0,
    text: 'not credited: ' + (outcome.duplicates || 0) + ' duplicates · ' + (outcome.late || 0) + ' late · rejected: ' + parts.join(', ') });
}

// The sequential test's reading (the outcome's `sequential`): a decision (A, B, or no
// difference within the design's margin) or "keep going" with the always-valid p-value and the
// confidence sequence; under multileaving the pairs' decisions come from Holm's procedure.
function decisionText(reading, first, second) {
  const interval = reading.interval ? ' · confidence sequence [' + fixed(reading.interval.lower, 3) + ', ' + fixed(reading.interval.upper, 3) + ']' : '';
  const p = 'always-valid p ' + fixed(reading.p_value, 4);
  switch (reading.decision) {
    case 'A': return first + ' is better (look ' + reading.decided_at_look + ') · ' + p + interval;
    case 'B': return second + ' is better (look ' + reading.decided_at_look + ') · ' + p + interval;
    case 'no difference': return 'no difference as large as ' + fixed(reading.bound, 3) + ' (look ' + reading.decided_at_look + ') · ' + p + interval;
    default: return 'keep going · ' + p + interval;
  }
}

// A pair's row: its decision in a few words (the whole reading is above the table).
function pairDecision(reading, first, second) {
  const said = reading.decision === 'A' ? first : reading.decision === 'B' ? second : reading.decision;
  return said + ' · p ' + fixed(reading.p_value, 4);
}

function decision(outcome) {
  const s = outcome.sequential;
  if (!s) return null;
  const d = s.design;
  return el('div', { class: 'decision', 'data-decision': s.decision, 'data-look': s.look, 'data-correction': s.correction },
    el('strong', { text: 'Decision: ' + decisionText(s, 'A', 'B') }),
    el('div', { class: 'meta', text: 'look ' + s.look + ' of ' + d.looks + ' (every ' + d.look_every + ' decided sessions, at most ' + d.max_sessions +
      '; ' + s.decided_sessions + ' decided at the latest) · planned for a net preference of ' + fixed(d.margin, 3) + ' at power ' + d.power +
      ', α ' + d.alpha + (s.correction === 'holm' ? ' · pairs decided by Holm\'s procedure across the ' + outcome.pairs.length + ' pairs' : '') }));
}

// Credit of A against B by the age of B's snapshot when the page was served: whether B
// loses because it is stale.
const AGE_NAMES = { under_15m: 'under 15 min', '15m_to_1h': '15 min – 1 h', '1h_to_6h': '1 – 6 h', '6h_or_more': '6 h or more', unknown: 'unknown (older ids)' };
function freshness(outcome) {
  const rows = (outcome.freshness || []).map(bucket => el('tr', { class: 'age', 'data-bucket': bucket.bucket },
    el('td', { class: 'text', text: AGE_NAMES[bucket.bucket] || bucket.bucket }), el('td', { text: bucket.impressions }),
    el('td', { text: bucket.wins_a }), el('td', { text: bucket.wins_b }), el('td', { text: bucket.ties }),
    el('td', { text: fixed(bucket.preference.delta, 3) }),
    el('td', { text: '[' + fixed(bucket.preference.ci_lower, 3) + ', ' + fixed(bucket.preference.ci_upper, 3) + ']' })));
  return el('table', { class: 'freshness' },
    el('tr', {}, ['age of B\'s snapshot', 'impressions', 'wins A', 'wins B', 'ties', 'Δ', '95 % interval'].map(h => el('th', { text: h }))), rows);
}

// Credit of A against B by where the pages were shown: search, and each feed component whose
// interleaved list is traffic of the experiment.
function surfaces(outcome) {
  const rows = (outcome.surfaces || []).map(entry => el('tr', { class: 'surface', 'data-surface': entry.surface },
    el('td', { class: 'text', text: entry.surface }), el('td', { text: entry.impressions }),
    el('td', { text: entry.wins_a }), el('td', { text: entry.wins_b }), el('td', { text: entry.ties }),
    el('td', { text: fixed(entry.preference.delta, 3) }),
    el('td', { text: '[' + fixed(entry.preference.ci_lower, 3) + ', ' + fixed(entry.preference.ci_upper, 3) + ']' }),
    el('td', { text: fixed(entry.p_value, 4) })));
  return el('table', { class: 'surfaces' },
    el('tr', {}, ['shown on', 'impressions', 'wins A', 'wins B', 'ties', 'Δ', '95 % interval', 'p-value'].map(h => el('th', { text: h }))), rows);
}

// A layout experiment (feeds.<feed>.experiment): its variants compared per user, the unit the
// feed's buckets randomize. An interval as the outcome gives it, or '–' when there is none.
function layoutRange(range) { return range ? '[' + fixed(range.lower, 3) + ', ' + fixed(range.upper, 3) + ']' : '–'; }

function layoutVariants(outcome) {
  const rows = outcome.variants.map(v => el('tr', { class: 'variant', 'data-variant': v.name },
    el('td', { class: 'text', text: v.name }), el('td', { text: v.weight }), el('td', { text: v.users }), el('td', { text: v.sessions }),
    el('td', { text: v.impressions }), el('td', { text: v.clicks }), el('td', { text: fixed(v.clicks_per_user, 3) }),
    el('td', { text: fixed(v.variance, 3) })));
  return el('table', { class: 'variants' },
    el('tr', {}, ['variant', 'weight', 'users', 'sessions', 'impressions', 'clicks', 'clicks per user', 'variance per user'].map(h => el('th', { text: h }))),
    rows);
}

// Users per variant against the configured weights (χ² goodness of fit). A mismatch (p < 0.001)
// means the split or the counting is broken: no difference below can be trusted.
function layoutSampleRatio(outcome) {
  const s = outcome.sample_ratio;
  const test = 'users per variant against the weights: χ² ' + fixed(s.chi_square, 2) + ' with ' + s.degrees_of_freedom +
    ' degree' + (s.degrees_of_freedom === 1 ? '' : 's') + ' of freedom, p ' + (s.p_value < 0.0001 ? '< 0.0001' : fixed(s.p_value, 4));
  if (!s.mismatch) return el('div', { class: 'meta sample-ratio', 'data-mismatch': 'false', text: 'Sample ratio: ' + test + ' · no mismatch' });
  return el('div', { class: 'sample-ratio errors', 'data-mismatch': 'true', role: 'alert' },
    el('strong', { text: 'Sample ratio mismatch: ' }),
    test + ' (below 0.001). The split of users or their counting is broken; do not trust any difference below until the cause is found.');
}

// A pair's sequential reading in words. A means the pair's first variant is better, B its second;
// the margin is in standard deviations of a user's clicks, not in clicks per user.
function layoutDecisionText(reading, first, second) {
  const range = reading.interval ? ' · confidence sequence ' + layoutRange(reading.interval) : '';
  const p = 'always-valid p ' + fixed(reading.p_value, 4) + ' · ' + reading.decided_sessions + ' users at look ' + reading.look;
  switch (reading.decision) {
    case 'A': return 'A: ' + first + ' is better (decided at look ' + reading.decided_at_look + ') · ' + p + range;
    case 'B': return 'B: ' + second + ' is better (decided at look ' + reading.decided_at_look + ') · ' + p + range;
    case 'no difference': return 'no difference as large as ' + fixed(reading.bound, 3) + ' standard deviations of a user\'s clicks (decided at look ' +
      reading.decided_at_look + ') · ' + p + range;
    default: return 'keep going · ' + p + range;
  }
}

function layoutPairs(outcome) {
  const rows = outcome.pairs.map(pair => el('tr', { class: 'pair', 'data-first': pair.first, 'data-second': pair.second },
    el('td', { class: 'text', text: pair.first + ' vs ' + pair.second }),
    el('td', { text: fixed(pair.difference, 3) }), el('td', { text: layoutRange(pair.interval) }), el('td', { text: fixed(pair.p_value, 4) }),
    el('td', { class: 'text pair-decision', 'data-decision': pair.sequential ? pair.sequential.decision : '',
      text: pair.sequential ? pairDecision(pair.sequential, pair.first, pair.second) : '' })));
  return el('table', { class: 'pairs' },
    el('tr', {}, ['pair (first vs second)', 'Δ clicks per user (second − first)', '95 % interval (fixed horizon)', 'p-value', 'sequential']
      .map(h => el('th', { text: h }))), rows);
}

function layoutSection(name, outcome) {
  const d = outcome.sequential;
  const decisions = outcome.pairs.filter(pair => pair.sequential).map(pair => el('div', { class: 'decision', 'data-first': pair.first,
    'data-second': pair.second, 'data-decision': pair.sequential.decision, 'data-look': pair.sequential.look },
    el('strong', { text: pair.first + ' vs ' + pair.second + ': ' + layoutDecisionText(pair.sequential, pair.first, pair.second) })));
  return el('section', { class: 'layout-experiment', 'data-id': name, 'data-feed': outcome.feed },
    el('h3', { text: name + ' (feed ' + outcome.feed + ')' }),
    el('div', { class: 'meta design', text: outcome.design }),
    layoutSampleRatio(outcome),
    layoutVariants(outcome),
    decisions,
    el('div', { class: 'meta', text: 'a look every ' + d.look_every + ' users of a pair, at most ' + d.looks + ' looks (' + d.max_sessions +
      ' users; ' + d.fixed_sessions + ' at a fixed horizon) · planned for a difference of ' + fixed(d.margin, 3) +
      ' standard deviations of a user\'s clicks at power ' + d.power + ', α ' + d.alpha +
      (outcome.correction === 'holm' ? ' · pairs decided by Holm\'s procedure across the ' + outcome.pairs.length + ' pairs' : '') }),
    layoutPairs(outcome),
    el('div', { class: 'meta evidence', 'data-duplicates': outcome.duplicates || 0,
      text: 'not credited: ' + (outcome.duplicates || 0) + ' duplicates · ' + (outcome.late || 0) + ' late' }));
}

async function renderExperiments(main, generation) {
  const overview = Console.overview;
  const layouts = overview.layout_experiments || [];
  const box = el('div', { id: 'experiments' });
  const layoutBox = el('div', { id: 'layout-experiments' });
  main.append(el('p', { class: 'meta', text: 'Team-draft arms of interleaving.arms. Samples every ' + overview.sample_interval_ms +
    ' ms, kept in this gateway process only (a restart starts the chart again).' }), box);
  if (overview.experiments.length === 0) {
    box.append(el('p', { text: 'No team-draft arms are configured (interleaving.arms with mode: team_draft).' }));
  }
  if (layouts.length > 0) {
    main.append(el('p', { class: 'meta', text: 'Layout experiments of feeds.<feed>.experiment: each variant\'s users and the clicks on its ' +
      'components, and every pair of variants compared per user.' }), layoutBox);
  }
  if (overview.experiments.length === 0 && layouts.length === 0) {
    main.dataset.ready = 'true';
    return;
  }
  async function refresh() {
    const parts = [];
    for (const id of overview.experiments) {
      const [outcome, history] = await Promise.all([getJSON('/v1/experiments/' + encodeURIComponent(id)),
        getJSON('/v1/admin/experiments/' + encodeURIComponent(id) + '/history')]);
      const p = outcome.preference;
      const rows = outcome.pairs.map(pair => el('tr', {},
        el('td', { text: teamName(pair.first, outcome.teams) + ' vs ' + teamName(pair.second, outcome.teams) }),
        el('td', { text: outcome.impressions }), el('td', { text: pair.wins_first }), el('td', { text: pair.wins_second }),
        el('td', { text: pair.ties }), el('td', { text: fixed(pair.preference.delta, 3) }),
        el('td', { text: '[' + fixed(pair.preference.ci_lower, 3) + ', ' + fixed(pair.preference.ci_upper, 3) + ']' }),
        el('td', { text: fixed(pair.p_value, 4) }),
        el('td', { class: 'text pair-decision', 'data-decision': pair.sequential ? pair.sequential.decision : '',
          text: pair.sequential ? pairDecision(pair.sequential, teamName(pair.first, outcome.teams), teamName(pair.second, outcome.teams)) : '' })));
      parts.push(el('section', { class: 'experiment', 'data-id': id, 'data-impressions': outcome.impressions },
        el('h3', { text: id }),
        decision(outcome),
        el('table', {}, el('tr', {}, ['pair', 'impressions', 'wins first', 'wins second', 'ties', 'Δ', '95 % interval', 'p-value', 'sequential'].map(h => el('th', { text: h }))), rows),
        el('div', { class: 'meta', text: 'A vs B: Δ ' + fixed(p.delta, 3) + ' [' + fixed(p.ci_lower, 3) + ', ' + fixed(p.ci_upper, 3) + '], p ' + fixed(outcome.p_value, 4) +
          ' · ' + history.samples.length + ' samples' }),
        evidence(outcome),
        freshness(outcome),
        surfaces(outcome),
        chart(history.samples)));
    }
    const layoutParts = [];
    for (const name of layouts) layoutParts.push(layoutSection(name, (await getJSON('/v1/experiments/' + encodeURIComponent(name))).layout));
    if (generation === Console.generation) {
      if (overview.experiments.length > 0) box.replaceChildren(...parts);
      layoutBox.replaceChildren(...layoutParts);
      main.dataset.ready = 'true';
    }
  }
  await refresh();
  every(Math.max(2000, overview.sample_interval_ms), () => refresh().catch(e => status(e.message)));
}
