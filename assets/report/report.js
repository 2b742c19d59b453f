/*
 * arena tournament report: the match table.
 *
 * #report-data holds names by index (bots, maps, terminations, reasons) and one array per match:
 * [id, game, map, termination, culprit seat or -1, turns, duration ms, reason, replay,
 *  seat0 bot, seat0 rank, seat1 bot, seat1 rank, ...]; replay is 0 (none), 1 (.jsonl) or 2 (.html).
 * `total` is the number of matches in the folder: past a few thousand, the rows are every faulted
 * match and the first others by id (matches.csv has them all).
 * Only one page of rows is in the DOM at a time.
 */
(function () {
  'use strict';

  const data = JSON.parse(document.getElementById('report-data').textContent);
  const PAGE = 100;
  const rows = data.rows;
  const seats = data.roles.length || (rows.length ? (rows[0].length - 9) / 2 : 0);
  let shown = rows;
  let page = 0;
  let sortKey = 0;
  let sortDir = 1;

  function el(tag, attrs, parent, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }

  const controls = document.getElementById('match-controls');
  const bot = el('select', { 'aria-label': 'bot' }, el('label', {}, controls, 'bot '));
  el('option', { value: '' }, bot, 'any');
  data.bots.forEach((b, i) => el('option', { value: i }, bot, b));
  const term = el('select', { 'aria-label': 'termination' }, el('label', {}, controls, 'ending '));
  el('option', { value: '' }, term, 'any');
  data.terminations.forEach((t, i) => el('option', { value: i }, term, t));
  const map = el('input', { type: 'search', placeholder: 'map name contains', 'aria-label': 'map' }, el('label', {}, controls, 'map '));
  const onlyReplays = el('input', { type: 'checkbox' }, null);
  const replayLabel = el('label', {}, controls);
  replayLabel.appendChild(onlyReplays);
  replayLabel.appendChild(document.createTextNode(' with replay only'));
  const info = el('span', { class: 'count' }, controls);
  const nav = el('span', { class: 'pager' }, controls);
  const prev = el('button', { type: 'button' }, nav, '◀');
  const pageInfo = el('span', {}, nav);
  const next = el('button', { type: 'button' }, nav, '▶');

  const columns = [
    ['id', 0], ['game', 1], ['map', 2],
  ];
  for (let s = 0; s < seats; s++) columns.push([data.roles[s] || 'seat ' + s, 9 + 2 * s]);
  columns.push(['winner', -1], ['ending', 3], ['reason', 7], ['actions', 5], ['ms', 6], ['replay', 8]);

  function winner(r) {
    const firsts = [];
    for (let s = 0; s < seats; s++) if (r[10 + 2 * s] === 1) firsts.push(s);
    return firsts.length === 1 ? data.bots[r[9 + 2 * firsts[0]]] : 'draw';
  }

  function apply() {
    const b = bot.value === '' ? null : Number(bot.value);
    const t = term.value === '' ? null : Number(term.value);
    const m = map.value.trim().toLowerCase();
    shown = rows.filter((r) => {
      if (t !== null && r[3] !== t) return false;
      if (onlyReplays.checked && r[8] === 0) return false;
      if (m && !data.maps[r[2]].toLowerCase().includes(m)) return false;
      if (b !== null) {
        let found = false;
        for (let s = 0; s < seats; s++) if (r[9 + 2 * s] === b) found = true;
        if (!found) return false;
      }
      return true;
    });
    if (sortKey >= 0) {
      shown = shown.slice().sort((x, y) => (x[sortKey] - y[sortKey] || x[0] - y[0]) * sortDir);
    }
    page = 0;
    render();
  }

  function render() {
    const pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.max(0, Math.min(page, pages - 1));
    info.textContent = shown.length + ' of ' + rows.length + ' matches' +
      (data.total > rows.length ? ' listed (' + data.total + ' in matches.csv)' : '');
    pageInfo.textContent = ' page ' + (page + 1) + ' of ' + pages + ' ';
    const holder = document.getElementById('match-table');
    holder.innerHTML = '';
    const table = el('table', { class: 'data matches' }, holder);
    const head = el('tr', {}, el('thead', {}, table));
    for (const [name, key] of columns) {
      const th = el('th', key >= 0 && key !== 8 ? { class: 'sortable' } : {}, head, name + (key === sortKey ? (sortDir > 0 ? ' ▲' : ' ▼') : ''));
      if (key >= 0 && key !== 8) th.addEventListener('click', () => {
        sortDir = sortKey === key ? -sortDir : 1;
        sortKey = key;
        apply();
      });
    }
    const body = el('tbody', {}, table);
    for (const r of shown.slice(page * PAGE, page * PAGE + PAGE)) {
      const tr = el('tr', r[3] === data.terminations.indexOf('normal') ? {} : { class: 'fault' }, body);
      el('td', { class: 'num' }, tr, r[0]);
      el('td', { class: 'num' }, tr, r[1]);
      el('td', {}, tr, data.maps[r[2]]);
      for (let s = 0; s < seats; s++) {
        const td = el('td', {}, tr, data.bots[r[9 + 2 * s]]);
        if (r[4] === s) td.className = 'culprit';
        else if (r[10 + 2 * s] === 1) td.className = 'first';
      }
      el('td', {}, tr, winner(r));
      el('td', {}, tr, data.terminations[r[3]]);
      el('td', { class: 'reason' }, tr, data.reasons[r[7]]);
      el('td', { class: 'num' }, tr, r[5]);
      el('td', { class: 'num' }, tr, r[6]);
      const cell = el('td', {}, tr);
      if (r[8] > 0) {
        const href = 'replays/' + r[0] + (r[8] === 2 ? '.html' : '.jsonl');
        el('a', { href, class: 'replay' }, cell, r[8] === 2 ? 'view' : 'jsonl');
      }
    }
  }

  for (const input of [bot, term, onlyReplays]) input.addEventListener('change', apply);
  map.addEventListener('input', apply);
  prev.addEventListener('click', () => { page--; render(); });
  next.addEventListener('click', () => { page++; render(); });
  window.arenaReport = { rows: rows.length, total: data.total, shown: () => shown.length };
  apply();
})();
