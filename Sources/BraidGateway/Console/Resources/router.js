// The router, last: one page at a time by the URL's hash; leaving a page stops its timers.
const PAGES = { search: renderSearch, feed: renderFeed, experiments: renderExperiments, workers: renderWorkers };

async function route() {
  for (const timer of Console.timers) { clearInterval(timer); clearTimeout(timer); }
  Console.timers = [];
  Console.generation += 1;
  const name = PAGES[location.hash.slice(1)] ? location.hash.slice(1) : 'search';
  for (const link of document.querySelectorAll('header nav a')) link.classList.toggle('active', link.dataset.page === name);
  const main = document.getElementById('main');
  main.replaceChildren();
  main.dataset.page = name;
  main.dataset.ready = 'false';
  status('');
  try {
    if (!Console.overview) Console.overview = await getJSON('/v1/admin/console');
    await PAGES[name](main, Console.generation);
  } catch (error) {
    status(error.message);
  }
}

window.addEventListener('hashchange', route);
route();
