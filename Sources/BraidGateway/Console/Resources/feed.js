// Feed preview: stage 1 (the layout) draws every component as a skeleton of its declared
// size; stage 2 fills them: the prefetched ones in one batchGet, the others as they scroll
// into view. `pending` stays a skeleton and is asked for again, as an app would.
async function renderFeed(main, generation) {
  const overview = Console.overview;
  const feed = select('feed', overview.feeds.map(f => [f, f]), overview.feeds.includes('home') ? 'home' : overview.feeds[0]);
  const user = el('input', { name: 'user', value: 'u00002', size: 10 });
  const deadline = el('input', { name: 'timeout_ms', type: 'number', min: 1, max: 10000, placeholder: 'default', style: { width: '7em' } });
  const form = el('form', { class: 'bar', id: 'feed-form' }, field('feed', feed), field('user', user),
    field('batchGet deadline (ms)', deadline), el('button', { type: 'submit', text: 'Load' }));
  const info = el('div', { class: 'meta', id: 'feed-info' });
  const phone = el('div', { class: 'feed', id: 'feed' });
  main.append(form, info, phone);
  form.addEventListener('submit', event => { event.preventDefault(); load().catch(e => status(e.message)); });

  function skeletons(layout, count) {
    const size = layout.default_size;
    return Array.from({ length: count }, () => el('div', { class: 'skeleton', style: { width: size.width + 'px', height: size.height + 'px' } }));
  }

  function skeletonFor(component) {
    const style = component.layout.style;
    if (style === 'horizontal_list') return el('div', { class: 'hlist' }, skeletons(component.layout, 3));
    if (style === 'vertical_list' || style === 'grid') return el('div', { class: style === 'grid' ? 'grid' : 'vlist' }, skeletons(component.layout, 2));
    return el('div', {}, skeletons(component.layout, 1));
  }

  function cell(item, size) {
    const title = item.title || item.name || item.recipe_title || item.id;
    const detail = item.author ? 'by ' + item.author : item.follower_count !== undefined ? item.follower_count + ' followers' :
      item.comment || (item.team ? 'team ' + item.team + ' · #' + item.position : '');
    const node = el('div', { class: 'cell', 'data-id': item.id, style: { width: size.width + 'px', height: size.height + 'px' } },
      el('div', { class: 'art', style: { background: hue(item.id) } }), el('div', { class: 'caption' }, el('strong', { text: title }), el('br'), detail));
    if (item.team) { node.dataset.team = item.team; node.style.borderLeft = '6px solid ' + teamColor(teamIndex(item)); }
    return node;
  }

  function carousel(component, content) {
    const size = component.layout.default_size;
    const options = component.layout.carousel || { auto_advance_interval_ms: component.layout.auto_scroll_interval_ms || 5000,
      advance_only_when_idle: true, wrap: true, transition_ms: 300, overlay_title: true };
    const strip = el('div', { class: 'strip', style: { transitionDuration: options.transition_ms + 'ms' } },
      content.items.map(item => el('div', { class: 'slide', 'data-id': item.id, style: { width: size.width + 'px', background: hue(item.id) } },
        options.overlay_title ? el('div', { class: 'overlay', text: item.overlay_title || item.title }) : null)));
    const dots = el('div', { class: 'dots' });
    const node = el('div', { class: 'carousel', 'data-index': 0, 'data-interval-ms': options.auto_advance_interval_ms,
                             style: { width: size.width + 'px', height: size.height + 'px' } }, strip, dots);
    let index = 0;
    let touched = 0;
    const show = () => { strip.style.transform = 'translateX(' + (-index * size.width) + 'px)'; node.dataset.index = index;
                         dots.textContent = (index + 1) + ' / ' + content.items.length; };
    node.addEventListener('pointerdown', () => { touched = Date.now(); });
    show();
    if (content.items.length > 1) {
      every(options.auto_advance_interval_ms, () => {
        if (options.advance_only_when_idle && Date.now() - touched < options.auto_advance_interval_ms) return;
        if (index + 1 >= content.items.length && !options.wrap) return;
        index = (index + 1) % content.items.length;
        node.dataset.advances = String(Number(node.dataset.advances || 0) + 1);
        node.dataset.previousAdvanceMs = node.dataset.lastAdvanceMs || '';
        node.dataset.lastAdvanceMs = String(Math.round(performance.now()));
        show();
      });
    }
    return node;
  }

  function card(component, content) {
    const item = content.items[0] || {};
    const size = component.layout.default_size;
    if (component.layout.style === 'banner') {
      return el('div', { class: 'banner', 'data-id': item.id, style: { width: size.width + 'px', height: size.height + 'px' } },
        content.items.length ? item.title : 'no campaign running');
    }
    const entries = Object.entries(item).filter(([k, v]) => k !== 'id' && typeof v !== 'object' && !String(k).endsWith('_url'));
    return el('div', { class: 'card', style: { width: size.width + 'px', minHeight: size.height + 'px' } },
      entries.map(([k, v]) => el('div', {}, el('div', { class: 'meta', text: k }), el('strong', { text: v }))));
  }

  /** A list with "more" following its own next_cursor. */
  function list(component, content, url) {
    const style = component.layout.style;
    const box = el('div', { class: style === 'horizontal_list' ? 'hlist' : style === 'grid' ? 'grid' : 'vlist' });
    const more = el('button', { type: 'button', class: 'more', text: 'more' });
    let cursor = content.next_cursor;
    const add = items => box.append(...items.map(item => cell(item, component.layout.default_size)));
    add(content.items);
    more.hidden = !cursor;
    more.addEventListener('click', async () => {
      const next = await getJSON(url + '&' + query({ cursor }));
      add(next.items); cursor = next.next_cursor; more.hidden = !cursor;
    });
    if (style === 'horizontal_list' && cursor) box.append(more);
    return style === 'horizontal_list' ? box : el('div', {}, box, more);
  }

  /** Tabs: each tab is a component with its own URL and cursor, so each pages on its own. */
  function tabs(component) {
    const heads = el('div', { class: 'heads' });
    const panels = el('div', {});
    const node = el('div', { class: 'tabs', 'data-id': component.id }, heads, panels);
    const tabState = {};
    for (const [i, tab] of component.tabs.entries()) {
      const panel = el('div', { class: 'panel', 'data-tab': tab.id, 'data-page': 0 });
      const head = el('button', { type: 'button', 'data-tab': tab.id, text: tab.title });
      heads.append(head); panels.append(panel);
      tabState[tab.id] = { cursors: [null], page: 0 };
      const show = async page => {
        const state = tabState[tab.id];
        const cursor = state.cursors[page - 1];
        panel.replaceChildren(el('div', { class: 'vlist' }, skeletons({ default_size: tab.default_size }, 2)));
        const content = await getJSON(tab.content_url + (cursor ? '&' + query({ cursor }) : ''));
        state.page = page; state.cursors[page] = content.next_cursor;
        const box = el('div', { class: 'vlist' }, content.items.map(item => cell(item, tab.default_size)));
        const prev = el('button', { type: 'button', class: 'prev', text: '‹ prev' });
        const next = el('button', { type: 'button', class: 'next', text: 'next ›' });
        prev.disabled = page <= 1; next.disabled = !content.next_cursor;
        prev.addEventListener('click', () => show(page - 1).catch(e => status(e.message)));
        next.addEventListener('click', () => show(page + 1).catch(e => status(e.message)));
        panel.replaceChildren(box, el('div', { class: 'pager' }, prev, el('span', { text: 'page ' + page }), next));
        panel.dataset.page = page;
      };
      head.addEventListener('click', () => {
        for (const other of node.querySelectorAll('.heads button, .panel')) other.classList.remove('active');
        head.classList.add('active'); panel.classList.add('active');
        if (tabState[tab.id].page === 0) show(1).catch(e => status(e.message));
      });
      if (i === 0) head.click();
    }
    return node;
  }

  function draw(section, component, content) {
    const body = section.querySelector('.body');
    section.dataset.status = content.status;
    if (content.status !== 'ready') {
      // Pending: keep the skeleton of the declared size, ask again a little later.
      body.replaceChildren(skeletonFor(component));
      later(3000, () => fetchOne(section, component));
      return;
    }
    const style = component.layout.style;
    const url = component.content_url;
    let drawn;
    if (style === 'carousel') drawn = carousel(component, content);
    else if (style === 'tabs') drawn = tabs(component);
    else if (style === 'card' || style === 'banner') drawn = card(component, content);
    else drawn = list(component, content, url);
    body.replaceChildren(drawn);
    section.dataset.source = content.source;
  }

  async function fetchOne(section, component) {
    if (generation !== Console.generation) return;
    const content = await getJSON(component.content_url);
    if (generation === Console.generation) draw(section, component, content);
  }

  async function load() {
    main.dataset.ready = 'false';
    const layout = await getJSON('/v1/feeds/' + encodeURIComponent(feed.value) + '?' + query({ user: user.value }));
    if (generation !== Console.generation) return;
    info.textContent = 'feed ' + layout.feed + ' · user ' + layout.user + ' · bucket ' + layout.bucket + ' · ' + layout.components.length + ' components';
    phone.replaceChildren();
    const sections = {};
    const observer = new IntersectionObserver(entries => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        observer.unobserve(entry.target);
        const component = layout.components.find(c => c.id === entry.target.dataset.id);
        fetchOne(entry.target, component).catch(e => status(e.message));
      }
    }, { rootMargin: '100px' });
    for (const component of layout.components) {
      const section = el('section', { class: 'component', 'data-id': component.id, 'data-type': component.type,
                                      'data-style': component.layout.style, 'data-status': 'loading' },
        el('h4', {}, component.title || component.id, el('span', { class: 'meta', text: '  ' + component.type + ' · ' + component.layout.style })),
        el('div', { class: 'body' }, skeletonFor(component)));
      sections[component.id] = section;
      phone.append(section);
    }
    const prefetch = layout.components.filter(c => c.prefetch).map(c => c.id);
    if (prefetch.length) {
      const body = { user: user.value, components: prefetch };
      if (deadline.value) body.timeout_ms = Number(deadline.value);
      const batch = await getJSON('/v1/feeds/' + encodeURIComponent(feed.value) + '/components:batchGet',
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      for (const content of batch.components) {
        const component = layout.components.find(c => c.id === content.component);
        if (component) draw(sections[component.id], component, content);
      }
    }
    main.dataset.batchDone = 'true';
    for (const component of layout.components) if (!component.prefetch) observer.observe(sections[component.id]);
    main.dataset.ready = 'true';
  }
  await load();
}
