// The console's script is this file and the pages after it, served as one file
// (/console/console.js; the order is ConsoleAssets.scriptFiles), so the 'use strict' below
// covers them all. Helpers every page uses. Data comes only from the gateway's public routes
// and its read-only /v1/admin/* routes; nothing the console does writes.
'use strict';
const TEAM_COLORS = ['#2f6fde', '#e07b1a', '#2e9e5b', '#a347c2', '#c23b4a'];
const Console = { timers: [], overview: null, generation: 0 };
window.braidConsole = Console;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null) continue;
    if (key === 'style' && typeof value === 'object') {
      for (const [name, v] of Object.entries(value)) {
        if (name.startsWith('--')) node.style.setProperty(name, v); else node.style[name] = v;
      }
    }
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key === 'text') node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

async function getJSON(url, options) {
  const response = await fetch(url, Object.assign({ credentials: 'same-origin' }, options || {}));
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const error = body && body.error ? body.error.code + ': ' + body.error.message : 'HTTP ' + response.status;
    throw new Error(url.split('?')[0] + ' → ' + error);
  }
  return body;
}

function status(text) { document.getElementById('status').textContent = text || ''; }
function every(ms, fn) { Console.timers.push(setInterval(fn, ms)); }
function later(ms, fn) { Console.timers.push(setTimeout(fn, ms)); }
function teamIndex(item) { return item.team_index !== undefined ? item.team_index : (item.team === 'B' ? 1 : 0); }
function teamColor(index) { return TEAM_COLORS[index % TEAM_COLORS.length]; }
function teamName(index, count) { return count > 2 ? 'team ' + index : (index === 0 ? 'A' : 'B'); }
function age(seconds) {
  if (seconds === null || seconds === undefined) return '–';
  if (seconds < 120) return seconds.toFixed(1) + ' s';
  if (seconds < 7200) return (seconds / 60).toFixed(1) + ' min';
  return (seconds / 3600).toFixed(1) + ' h';
}
function rate(value) { return value === null || value === undefined ? '–' : value.toFixed(1); }
function fixed(value, digits) { return value === null || value === undefined ? '–' : Number(value).toFixed(digits); }
/** A stable colour for drawn pictures: the console loads no images. */
function hue(id) { let h = 0; for (const c of String(id)) h = (h * 31 + c.charCodeAt(0)) % 360; return 'hsl(' + h + ',45%,62%)'; }
function query(params) {
  return Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => encodeURIComponent(k) + '=' + encodeURIComponent(v)).join('&');
}
function field(label, input) { return el('label', {}, label, input); }
function select(name, options, value) {
  const node = el('select', { name });
  for (const [optionValue, text] of options) node.append(el('option', { value: optionValue, text }));
  if (value !== undefined) node.value = value;
  return node;
}
