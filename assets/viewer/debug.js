/*
 * arena replay viewer: the bot author's panels (loaded after viewer.js, only for replays that
 * recorded stderr or metrics).
 *
 * - stderr: what a seat's bot wrote to its standard error during its decision at the current
 *   step (or, if another seat acted, during its latest decision before it), per seat, with a
 *   search over every decision of the match;
 * - metrics: each `@metric NAME=VALUE` the bots reported, plotted per step, one line per seat,
 *   the current step marked.
 *
 * Bot output is a stranger's text: it only ever goes into the page as text nodes.
 * viewer.js announces each step with the `arena:step` event.
 */
(function () {
  'use strict';

  const viewer = window.arenaViewer;
  const data = viewer.data;
  const steps = data.steps;
  const count = steps.length;
  const SVG_NS = 'http://www.w3.org/2000/svg';
  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, parent, text) {
    const e = document.createElement(tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }

  function svgEl(tag, attrs, parent) {
    const e = document.createElementNS(SVG_NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  const seatName = (s) => data.seats[s] ? data.seats[s].role : 'seat ' + s;

  // The latest step (1-based) at or before `index` at which `seat` decided, or 0.
  function latestDecision(seat, index) {
    for (let k = index; k >= 1; k--) if (steps[k - 1].seat === seat) return k;
    return 0;
  }

  let index = viewer.index;

  /* ------------------------------------------------------------- stderr */
  const panel = $('stderr-panel');
  // `null`: follow the seat that acted at the current step.
  let pinned = null;
  let query = '';
  let tabs, which, hits, text, search;

  function buildStderr() {
    el('h2', {}, panel, 'stderr');
    tabs = el('div', { class: 'stderr-tabs', role: 'group', 'aria-label': 'whose stderr' }, panel);
    const follow = el('button', { type: 'button', 'data-seat': '' }, tabs, 'acting seat');
    follow.addEventListener('click', () => { pinned = null; drawStderr(); });
    for (const s of data.seats) {
      const b = el('button', { type: 'button', 'data-seat': String(s.seat), title: s.role + ' (' + s.bot + ')' }, tabs);
      el('span', { class: 'swatch s' + s.seat }, b);
      b.appendChild(document.createTextNode(s.role));
      b.addEventListener('click', () => { pinned = s.seat; drawStderr(); });
    }
    search = el('input', { type: 'search', id: 'stderr-search', placeholder: 'search every turn\u2019s stderr', 'aria-label': 'search stderr' }, panel);
    search.addEventListener('input', () => { query = search.value; drawStderr(); });
    search.addEventListener('keydown', (e) => {
      // The viewer's arrow keys must not move the step while typing.
      e.stopPropagation();
      if (e.key === 'Enter') { e.preventDefault(); jumpToHit(e.shiftKey ? -1 : 1); }
    });
    hits = el('div', { id: 'stderr-hits' }, panel);
    which = el('p', { id: 'stderr-which', class: 'hint' }, panel);
    text = el('pre', { id: 'stderr-text', class: 'stderr' }, panel);
  }

  function shownSeat() {
    if (pinned !== null) return pinned;
    if (index >= 1) return steps[index - 1].seat;
    return steps.length ? steps[0].seat : 0;
  }

  // The steps whose stderr holds the query (the shown seat's only when one is pinned).
  function matchingSteps() {
    if (!query) return [];
    const q = query.toLowerCase();
    const found = [];
    steps.forEach((st, k) => {
      if (pinned !== null && st.seat !== pinned) return;
      if (st.stderr && st.stderr.toLowerCase().includes(q)) found.push(k + 1);
    });
    return found;
  }

  function jumpToHit(dir) {
    const found = matchingSteps();
    if (!found.length) return;
    const next = dir > 0 ? (found.find((k) => k > index) || found[0])
      : (found.slice().reverse().find((k) => k < index) || found[found.length - 1]);
    viewer.goto(next);
  }

  // `body` as text, with every occurrence of the query marked.
  function fillMarked(pre, body) {
    pre.textContent = '';
    if (!query) { pre.textContent = body; return; }
    const lower = body.toLowerCase(), q = query.toLowerCase();
    let at = 0;
    for (;;) {
      const i = lower.indexOf(q, at);
      if (i < 0) break;
      pre.appendChild(document.createTextNode(body.slice(at, i)));
      el('mark', {}, pre, body.slice(i, i + q.length));
      at = i + q.length;
    }
    pre.appendChild(document.createTextNode(body.slice(at)));
  }

  function drawStderr() {
    if (!panel) return;
    const seat = shownSeat();
    for (const b of tabs.children) {
      const on = b.dataset.seat === '' ? pinned === null : pinned === Number(b.dataset.seat);
      b.classList.toggle('on', on);
      b.setAttribute('aria-pressed', on ? 'true' : 'false');
    }
    const found = matchingSteps();
    hits.textContent = '';
    if (query) {
      el('span', { class: 'hint' }, hits, found.length ? found.length + ' turn' + (found.length > 1 ? 's' : '') + ': ' : 'no turn\u2019s stderr holds it');
      for (const k of found.slice(0, 40)) {
        const b = el('button', { type: 'button', class: 'hit s' + steps[k - 1].seat + (k === index ? ' current' : ''), title: seatName(steps[k - 1].seat) + ', step ' + k }, hits, String(k));
        b.addEventListener('click', () => viewer.goto(k));
      }
      if (found.length > 40) el('span', { class: 'hint' }, hits, ' \u2026');
    }
    const k = latestDecision(seat, index);
    let body = '';
    if (k === 0) {
      which.textContent = seatName(seat) + ' has not decided yet';
    } else {
      const own = k === index;
      which.textContent = seatName(seat) + ' \u00b7 ' + (own ? 'its decision at this step' : 'its latest decision, step ' + k);
      body = steps[k - 1].stderr || '';
      if (!body) which.textContent += ' \u00b7 wrote nothing';
    }
    // At the end, a bot whose failure ended the match: its last words.
    const r = data.result;
    if (index === count && r.culprit === seat && r.reports && r.reports[seat] && r.reports[seat].stderr_tail.length) {
      body += (body && !body.endsWith('\n') ? '\n' : '') + '\u2500\u2500 last lines before the match ended \u2500\u2500\n' + r.reports[seat].stderr_tail.join('\n');
    }
    text.classList.toggle('empty', !body);
    fillMarked(text, body);
  }

  /* ------------------------------------------------------------ metrics */
  const mpanel = $('metrics-panel');
  const names = [];
  {
    const seen = new Set();
    for (const st of steps) for (const n in (st.metrics || {})) seen.add(n);
    names.push(...Array.from(seen).sort());
  }
  let metric = names[0];
  let plot, values, chooser;
  const W = 340, H = 136, PAD_L = 44, PAD_R = 10, PAD_T = 8, PAD_B = 22;

  function buildMetrics() {
    const h = el('h2', {}, mpanel, 'metrics ');
    chooser = el('select', { id: 'metric-name', 'aria-label': 'which metric' }, h);
    for (const n of names) el('option', { value: n }, chooser, n);
    chooser.addEventListener('change', () => { metric = chooser.value; buildPlot(); drawMetrics(); });
    plot = svgEl('svg', { id: 'metric-plot', viewBox: '0 0 ' + W + ' ' + H, role: 'img' }, mpanel);
    values = el('p', { id: 'metric-values' }, mpanel);
    buildPlot();
  }

  let cursor = null;
  let xOf = () => 0;

  function buildPlot() {
    while (plot.firstChild) plot.removeChild(plot.firstChild);
    plot.setAttribute('aria-label', metric + ' per step, one line per seat');
    const points = data.seats.map(() => []);
    steps.forEach((st, k) => {
      const v = st.metrics && st.metrics[metric];
      if (v !== undefined) points[st.seat].push([k + 1, v]);
    });
    const all = points.flat().map(([, v]) => v);
    let lo = Math.min(...all), hi = Math.max(...all);
    if (lo > 0 && lo < hi / 2) lo = 0;
    if (hi === lo) { hi += 1; lo -= lo === 0 ? 0 : 1; }
    xOf = (k) => PAD_L + (W - PAD_L - PAD_R) * (count ? k / count : 0);
    const yOf = (v) => PAD_T + (H - PAD_T - PAD_B) * (1 - (v - lo) / (hi - lo));
    const fmt = (v) => Math.abs(v) >= 1e5 || (Math.abs(v) < 0.01 && v !== 0) ? v.toExponential(1) : String(Math.round(v * 100) / 100);
    svgEl('line', { x1: PAD_L, y1: PAD_T, x2: PAD_L, y2: H - PAD_B, class: 'axis' }, plot);
    svgEl('line', { x1: PAD_L, y1: H - PAD_B, x2: W - PAD_R, y2: H - PAD_B, class: 'axis' }, plot);
    for (const [v, y] of [[hi, PAD_T + 4], [lo, H - PAD_B]]) {
      const t = svgEl('text', { x: PAD_L - 4, y, class: 'tick' }, plot);
      t.textContent = fmt(v);
    }
    const t = svgEl('text', { x: W - PAD_R, y: H - 7, class: 'tick' }, plot);
    t.textContent = 'step ' + count;
    const t0 = svgEl('text', { x: PAD_L, y: H - 7, class: 'tick start' }, plot);
    t0.textContent = '0';
    points.forEach((pts, seat) => {
      if (!pts.length) return;
      const d = pts.map(([k, v], i) => (i ? 'L' : 'M') + xOf(k).toFixed(1) + ' ' + yOf(v).toFixed(1)).join('');
      svgEl('path', { d, class: 'series s' + seat, 'data-seat': seat }, plot);
      for (const [k, v] of pts) svgEl('circle', { cx: xOf(k), cy: yOf(v), r: 2, class: 'dot s' + seat }, plot);
    });
    cursor = svgEl('line', { y1: PAD_T, y2: H - PAD_B, class: 'cursor' }, plot);
  }

  function drawMetrics() {
    if (!mpanel) return;
    cursor.setAttribute('x1', xOf(index));
    cursor.setAttribute('x2', xOf(index));
    values.textContent = '';
    for (const s of data.seats) {
      let k = index;
      while (k >= 1 && !(steps[k - 1].seat === s.seat && steps[k - 1].metrics && metric in steps[k - 1].metrics)) k--;
      const span = el('span', { class: 'metric-value', 'data-seat': String(s.seat) }, values);
      el('span', { class: 'swatch s' + s.seat }, span);
      span.appendChild(document.createTextNode(s.role + ' ' + (k ? steps[k - 1].metrics[metric] + ' (step ' + k + ')' : '\u2013')));
    }
  }

  if (panel) buildStderr();
  if (mpanel && names.length) buildMetrics();
  const draw = () => { drawStderr(); if (mpanel && names.length) drawMetrics(); };
  document.addEventListener('arena:step', (e) => { index = e.detail.index; draw(); });
  draw();
})();
