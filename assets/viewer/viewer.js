/*
 * arena replay viewer.
 *
 * The page embeds (in #replay-data) the board, the first state and, per step, a patch of the
 * state (see src/view/frames.rs): `key` replaces a value, `key~` sets array elements
 * ([[index, value], ...]) and `key+` appends to an array. Every state is rebuilt once at load,
 * so moving to any step is one redraw. Each game has a renderer below: `init` draws what never
 * changes, `draw` updates the board for a state, `panel` writes the side panel.
 *
 * Tests drive the page through window.arenaViewer (goto, setPov, count).
 */
(function () {
  'use strict';

  const data = JSON.parse(document.getElementById('replay-data').textContent);
  const SVG_NS = 'http://www.w3.org/2000/svg';
  const $ = (id) => document.getElementById(id);

  function svgEl(tag, attrs, parent) {
    const e = document.createElementNS(SVG_NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  function htmlEl(tag, attrs, parent, text) {
    const e = document.createElement(tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }

  // DOM writes only where something changed: a step changes a few nodes of a big board.
  function setClass(e, cls) {
    if (e.__cls !== cls) { e.setAttribute('class', cls); e.__cls = cls; }
  }
  function setText(e, text) {
    if (e.__text !== text) { e.textContent = text; e.__text = text; }
  }
  function setVisible(e, on) {
    if (e.__on !== on) { e.setAttribute('visibility', on ? 'visible' : 'hidden'); e.__on = on; }
  }

  function applyPatch(prev, patch) {
    if ('=' in patch) return patch['='];
    const next = Object.assign({}, prev);
    for (const key in patch) {
      const value = patch[key];
      if (key.endsWith('~')) {
        const name = key.slice(0, -1);
        const arr = next[name].slice();
        for (const [i, v] of value) arr[i] = v;
        next[name] = arr;
      } else if (key.endsWith('+')) {
        const name = key.slice(0, -1);
        next[name] = next[name].concat(value);
      } else {
        next[key] = value;
      }
    }
    return next;
  }

  const steps = data.steps;
  const count = steps.length;
  const states = [data.initial];
  for (const step of steps) states.push(applyPatch(states[states.length - 1], step.patch));

  // Which decision of its seat each step was (the first has its own time limit).
  const decision = [];
  {
    const seen = data.seats.map(() => 0);
    for (const step of steps) decision.push(seen[step.seat]++);
  }

  const seatName = (s) => data.seats[s] ? data.seats[s].role : 'seat ' + s;
  const seatLabel = (s) => data.seats[s] ? data.seats[s].role + ' (' + data.seats[s].bot + ')' : 'seat ' + s;
  const ms = (micros) => (micros / 1000).toFixed(micros < 10000 ? 2 : 1) + ' ms';

  function fitView(svg, points, radius, extra) {
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    for (const [x, y] of points) {
      minX = Math.min(minX, x); maxX = Math.max(maxX, x);
      minY = Math.min(minY, y); maxY = Math.max(maxY, y);
    }
    if (!isFinite(minX)) { minX = minY = 0; maxX = maxY = 1; }
    const pad = radius * 2 + (extra || 0);
    svg.setAttribute('viewBox', [minX - pad, minY - pad, maxX - minX + 2 * pad, maxY - minY + 2 * pad].join(' '));
    svg.setAttribute('preserveAspectRatio', 'xMidYMid meet');
  }

  // A node label's size: legible beside the node, never wider than it allows.
  const fontFor = (radius) => Math.max(6, Math.min(radius * 0.95, 28));

  // The links of a network (Skynet, Greedy Spiders): a line per link and a cross that marks it
  // once cut. `classes[id]` is the line's class while it stands.
  function graphLinks(parent, nodes, links, r, classes) {
    const lines = links.map(([a, b], id) => {
      const [x1, y1] = nodes[a], [x2, y2] = nodes[b];
      return svgEl('line', { x1, y1, x2, y2, 'data-kind': 'edge', class: classes[id], 'stroke-width': Math.max(1, r * 0.16) }, parent);
    });
    const marks = links.map(([a, b]) => {
      const [x1, y1] = nodes[a], [x2, y2] = nodes[b];
      const mx = (x1 + x2) / 2, my = (y1 + y2) / 2, s = r * 0.4;
      return svgEl('path', {
        d: `M${mx - s} ${my - s}L${mx + s} ${my + s}M${mx - s} ${my + s}L${mx + s} ${my - s}`,
        class: 'cut-mark', 'stroke-width': Math.max(1, r * 0.2), visibility: 'hidden',
      }, parent);
    });
    return {
      // Marks the links of `cut` (0/1 per link); `before` is the previous step's, for the one just cut.
      draw(cut, before) {
        cut.forEach((c, id) => {
          const just = before !== null && c && !before[id];
          setClass(lines[id], classes[id] + (c ? ' cut' : '') + (just ? ' just-cut' : ''));
          setVisible(marks[id], !!c);
        });
      },
    };
  }

  /* ---------------------------------------------------------------- Skynet */
  const skynet = {
    init(svg, board) {
      this.board = board;
      const r = board.radius;
      this.r = r;
      fitView(svg, board.nodes, r);
      const gLinks = svgEl('g', { class: 'links' }, svg);
      this.path = svgEl('polyline', { class: 'agent-path', 'stroke-width': r * 0.45 }, svg);
      const gNodes = svgEl('g', { class: 'nodes' }, svg);
      const gateways = new Set(board.gateways);
      const classes = board.links.map(([a, b]) => gateways.has(a) || gateways.has(b) ? 'link gateway-link' : 'link');
      this.links = graphLinks(gLinks, board.nodes, board.links, r, classes);
      const font = fontFor(r);
      board.nodes.forEach(([x, y], i) => {
        const g = svgEl('g', { 'data-kind': 'node', 'data-node': i }, gNodes);
        if (gateways.has(i)) {
          svgEl('rect', { x: x - r * 1.15, y: y - r * 1.15, width: r * 2.3, height: r * 2.3, rx: r * 0.35, class: 'gateway' }, g);
        } else {
          svgEl('circle', { cx: x, cy: y, r, class: i === board.start ? 'node start' : 'node' }, g);
        }
        svgEl('text', { x, y, 'font-size': font, class: 'label' }, g).textContent = i;
        svgEl('title', {}, g).textContent = (gateways.has(i) ? 'gateway ' : 'node ') + i;
      });
      this.agent = svgEl('circle', { r: r * 1.3, class: 'agent s1', 'stroke-width': Math.max(2, r * 0.32) }, gNodes.parentNode.insertBefore(svgEl('g', {}), gNodes));
      svgEl('title', {}, this.agent).textContent = 'the agent';
    },
    draw(state, i) {
      const b = this.board;
      this.links.draw(state.cut, i > 0 ? states[i - 1].cut : null);
      const trail = [];
      for (let k = 0; k <= i; k++) {
        const a = states[k].agent;
        if (trail[trail.length - 1] !== a) trail.push(a);
      }
      this.path.setAttribute('points', trail.map((n) => b.nodes[n].join(',')).join(' '));
      const [x, y] = b.nodes[state.agent];
      this.agent.setAttribute('cx', x);
      this.agent.setAttribute('cy', y);
    },
    panel(state, i, el) {
      const cut = state.cut.reduce((n, c) => n + c, 0);
      const trail = new Set();
      for (let k = 0; k <= i; k++) trail.add(states[k].agent);
      el.innerHTML = '';
      const dl = htmlEl('dl', { class: 'facts' }, el);
      const fact = (k, v) => { htmlEl('dt', {}, dl, k); htmlEl('dd', {}, dl, v); };
      fact('turn', state.turn);
      fact('agent on', 'node ' + state.agent);
      fact('links cut', cut + ' of ' + state.cut.length);
      fact('nodes visited', trail.size);
      fact('layout', this.board.layout);
      legend(el, [['s1 swatch round', 'agent'], ['gateway swatch', 'gateway'], ['cut swatch', 'cut link'], ['path swatch', "agent's path"]]);
    },
  };

  /* ------------------------------------------------------- Painters' Duel */
  const painters = {
    init(svg, board) {
      this.board = board;
      const side = 60, h = side * Math.sqrt(3) / 2, size = board.size;
      this.centres = [];
      const g = svgEl('g', { class: 'rooms' }, svg);
      this.rooms = board.rooms.map(([r, p], i) => {
        const x0 = (size - r) * side / 2, top = (r - 1) * h, bottom = r * h;
        let pts, cy;
        if (p % 2 === 1) {
          const k = (p + 1) / 2;
          pts = [[x0 + (k - 0.5) * side, top], [x0 + k * side, bottom], [x0 + (k - 1) * side, bottom]];
          cy = top + h * 2 / 3;
        } else {
          const k = p / 2;
          pts = [[x0 + (k - 0.5) * side, top], [x0 + (k + 0.5) * side, top], [x0 + k * side, bottom]];
          cy = top + h / 3;
        }
        const cx = pts[0][0] / 3 + pts[1][0] / 3 + pts[2][0] / 3;
        this.centres.push([cx, cy]);
        const room = svgEl('g', { 'data-kind': 'node', 'data-room': r + ',' + p }, g);
        const poly = svgEl('polygon', { points: pts.map((q) => q.join(',')).join(' '), class: 'room' }, room);
        svgEl('title', {}, room).textContent = 'room (' + r + ', ' + p + ')';
        if (size <= 8) svgEl('text', { x: cx, y: cy + (p % 2 === 1 ? 8 : -4), class: 'room-label' }, room).textContent = r + ',' + p;
        return poly;
      });
      svg.setAttribute('viewBox', [-10, -10, size * side + 20, size * h + 20].join(' '));
      this.painters = [0, 1].map((s) => {
        const m = svgEl('g', { class: 'painter s' + s }, svg);
        svgEl('circle', { r: 13 }, m);
        svgEl('text', { y: 1 }, m).textContent = seatName(s).charAt(0).toUpperCase();
        svgEl('title', {}, m).textContent = seatName(s);
        return m;
      });
    },
    draw(state) {
      const names = { '-1': 'open', '0': 'painted s0', '1': 'painted s1', '2': 'blocked' };
      state.rooms.forEach((o, i) => setClass(this.rooms[i], 'room ' + names[o]));
      state.positions.forEach((room, s) => {
        const [x, y] = this.centres[room];
        this.painters[s].setAttribute('transform', `translate(${x} ${y})`);
      });
    },
    panel(state, i, el) {
      el.innerHTML = '';
      const t = htmlEl('table', { class: 'players' }, el);
      state.painted.forEach((n, s) => {
        const tr = htmlEl('tr', {}, t);
        htmlEl('td', {}, tr).appendChild(htmlEl('span', { class: 'swatch s' + s }));
        htmlEl('td', {}, tr, seatLabel(s));
        htmlEl('td', { class: 'num' }, tr, n + ' rooms');
      });
      const d = state.painted[0] - state.painted[1];
      htmlEl('p', { class: 'score' }, el, 'score so far (alma − berthe): ' + (d > 0 ? '+' : '') + d);
      const open = state.rooms.filter((o) => o === -1).length;
      const blocked = state.rooms.filter((o) => o === 2).length;
      htmlEl('p', {}, el, open + ' open rooms, ' + blocked + ' under construction');
      legend(el, [['room-open swatch', 'open'], ['room-blocked swatch', 'under construction']]);
    },
  };

  /* ------------------------------------------------------- Greedy Spiders */
  const spiders = {
    init(svg, board) {
      this.board = board;
      const r = board.radius;
      this.r = r;
      fitView(svg, board.nodes, r);
      const flies = new Set(board.flies);
      const gEdges = svgEl('g', { class: 'links' }, svg);
      this.edges = graphLinks(gEdges, board.nodes, board.edges, r, board.edges.map(() => 'link'));
      const gNodes = svgEl('g', { class: 'nodes' }, svg);
      const font = fontFor(r);
      board.nodes.forEach(([x, y], i) => {
        const g = svgEl('g', { 'data-kind': 'node', 'data-node': i }, gNodes);
        svgEl('circle', { cx: x, cy: y, r, class: flies.has(i) ? 'node fly' : 'node' }, g);
        svgEl('text', { x, y, 'font-size': font, class: 'label' }, g).textContent = flies.has(i) ? 'F' + i : i;
        svgEl('title', {}, g).textContent = (flies.has(i) ? 'fly on vertex ' : 'vertex ') + i;
      });
      this.gSpiders = svgEl('g', { class: 'spiders' }, svg);
      this.spiders = data.initial.spiders.map((_, k) => {
        const m = svgEl('g', { class: 'spider s1' }, this.gSpiders);
        svgEl('circle', { r: r * 0.55 }, m);
        svgEl('text', { 'font-size': fontFor(r * 0.6) }, m).textContent = k;
        svgEl('title', {}, m).textContent = 'spider ' + k;
        return m;
      });
    },
    draw(state, i) {
      this.edges.draw(state.removed, i > 0 ? states[i - 1].removed : null);
      // Spiders sharing a vertex are spread around it.
      const at = {};
      state.spiders.forEach((v, k) => { (at[v] = at[v] || []).push(k); });
      for (const v in at) {
        const group = at[v], [x, y] = this.board.nodes[v];
        group.forEach((k, j) => {
          const a = (2 * Math.PI * j) / group.length, d = group.length > 1 ? this.r * 0.7 : 0;
          const cx = x + this.r * 0.85 + d * Math.cos(a), cy = y - this.r * 0.85 + d * Math.sin(a);
          this.spiders[k].setAttribute('transform', `translate(${cx} ${cy})`);
        });
      }
    },
    panel(state, i, el) {
      el.innerHTML = '';
      const dl = htmlEl('dl', { class: 'facts' }, el);
      const fact = (k, v) => { htmlEl('dt', {}, dl, k); htmlEl('dd', {}, dl, v); };
      fact('round', state.round);
      fact('spiders on', state.spiders.join(', '));
      fact('edges removed', state.removed.reduce((n, c) => n + c, 0) + ' of ' + state.removed.length);
      fact('layout', this.board.layout === 'path' ? 'a path, drawn as a line' : 'force-directed layout');
      legend(el, [['s1 swatch round', 'spider'], ['fly swatch round', 'fly'], ['cut swatch', 'removed edge']]);
    },
  };

  /* ----------------------------------------------------------------- Risk */
  const risk = {
    hasPov: true,
    init(svg, board) {
      this.board = board;
      const r = board.radius;
      this.r = r;
      const pts = board.territories.map((t) => [t.x, t.y]);
      if (board.width > 0) {
        svg.setAttribute('viewBox', [-4, -6, board.width + 8, board.height + 14].join(' '));
      } else {
        fitView(svg, pts, r, r);
      }
      const gRegions = svgEl('g', { class: 'regions' }, svg);
      board.territories.forEach((t) => {
        svgEl('circle', { cx: t.x, cy: t.y, r: r * 2.5, fill: board.continents[t.continent].colour, class: 'region' }, gRegions);
      });
      const gBorders = svgEl('g', { class: 'borders' }, svg);
      board.borders.forEach(([a, b, wraps]) => {
        const p = board.territories[a], q = board.territories[b];
        if (wraps) {
          const [l, rr] = p.x < q.x ? [p, q] : [q, p];
          const yMid = (l.y + rr.y) / 2;
          svgEl('path', { d: `M${l.x} ${l.y}L0 ${yMid}M${rr.x} ${rr.y}L${board.width} ${yMid}`, class: 'border wraps', 'data-kind': 'edge' }, gBorders);
        } else {
          svgEl('line', { x1: p.x, y1: p.y, x2: q.x, y2: q.y, class: 'border', 'data-kind': 'edge' }, gBorders);
        }
      });
      this.arrow = svgEl('line', { class: 'attack-arrow', visibility: 'hidden', 'marker-end': 'url(#arrowhead)' }, svg);
      const defs = svgEl('defs', {}, svg);
      const marker = svgEl('marker', { id: 'arrowhead', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 5, markerHeight: 5, orient: 'auto-start-reverse' }, defs);
      svgEl('path', { d: 'M0 0L10 5L0 10z', class: 'arrowhead' }, marker);
      const gT = svgEl('g', { class: 'territories' }, svg);
      const font = Math.max(8, Math.min(r * 0.62, 13));
      this.nodes = board.territories.map((t, i) => {
        const g = svgEl('g', { 'data-kind': 'node', 'data-territory': i }, gT);
        const c = svgEl('circle', { cx: t.x, cy: t.y, r, class: 'territory' }, g);
        const armies = svgEl('text', { x: t.x, y: t.y, class: 'armies', 'font-size': r * 0.95 }, g);
        const label = svgEl('text', { x: t.x, y: t.y + r + font * 0.95, class: 'name', 'font-size': font }, g);
        splitName(t.name).forEach((part, k) => {
          svgEl('tspan', { x: t.x, dy: k === 0 ? 0 : font * 1.05 }, label).textContent = part;
        });
        const title = svgEl('title', {}, g);
        return { circle: c, armies, title, name: t.name };
      });
    },
    ownerName(o) {
      if (o < 0) return 'nobody';
      if (o === this.board.neutral) return 'the neutral';
      return seatName(o);
    },
    draw(state, i) {
      const b = this.board;
      this.nodes.forEach((n, t) => {
        const o = state.owner[t];
        const cls = o < 0 ? 'unclaimed' : o === b.neutral ? 'neutral' : 's' + o;
        setClass(n.circle, 'territory ' + cls);
        setText(n.armies, String(state.armies[t] || ''));
        setText(n.title, `${n.name}: ${this.ownerName(o)}, ${state.armies[t]} armies`);
      });
      const battle = i > 0 && (steps[i - 1].events || []).find((e) => e.kind === 'battle' && e.data);
      if (battle) {
        const p = b.territories[battle.data.from], q = b.territories[battle.data.to];
        const dx = q.x - p.x, dy = q.y - p.y, len = Math.hypot(dx, dy) || 1, cut = this.r * 1.05;
        this.arrow.setAttribute('x1', p.x + dx / len * cut);
        this.arrow.setAttribute('y1', p.y + dy / len * cut);
        this.arrow.setAttribute('x2', q.x - dx / len * cut);
        this.arrow.setAttribute('y2', q.y - dy / len * cut);
        setVisible(this.arrow, true);
      } else {
        setVisible(this.arrow, false);
      }
    },
    cardText(id) {
      const c = this.board.cards[id];
      return c.territory === null ? 'wild' : this.board.territories[c.territory].name;
    },
    // The panel is built once and updated in place: only what a step changed is written.
    buildPanel(el) {
      const b = this.board;
      const p = (this.ui = {});
      p.status = htmlEl('p', { class: 'status' }, el);
      p.asked = htmlEl('p', { class: 'asked' }, el);
      const t = htmlEl('table', { class: 'players' }, el);
      const head = htmlEl('tr', {}, t);
      for (const h of ['', 'player', 'terr.', 'armies', 'cards']) htmlEl('th', {}, head, h);
      const holders = b.neutral === null ? b.players : b.players + 1;
      p.rows = [];
      for (let s = 0; s < holders; s++) {
        const tr = htmlEl('tr', {}, t);
        htmlEl('td', {}, tr).appendChild(htmlEl('span', { class: 'swatch ' + (s === b.neutral ? 'neutral' : 's' + s) }));
        htmlEl('td', {}, tr, s === b.neutral ? 'neutral' : seatLabel(s));
        p.rows.push({ tr, terr: htmlEl('td', { class: 'num' }, tr), armies: htmlEl('td', { class: 'num' }, tr), cards: htmlEl('td', { class: 'num' }, tr) });
      }
      p.trades = htmlEl('p', { class: 'trades' }, el);
      p.hand = htmlEl('div', { class: 'hand', id: 'hand' }, el);
      p.handKey = null;
      const cont = htmlEl('ul', { class: 'continents' }, el);
      p.continents = b.continents.map((c, k) => {
        const li = htmlEl('li', {}, cont);
        li.appendChild(htmlEl('span', { class: 'swatch', style: 'background:' + c.colour }));
        const text = htmlEl('span', {}, li);
        const members = [];
        b.territories.forEach((t, j) => { if (t.continent === k) members.push(j); });
        return { text, members, name: `${c.name} +${c.bonus}` };
      });
    },
    panel(state, i, el, pov) {
      const b = this.board;
      if (!this.ui) this.buildPanel(el);
      const p = this.ui;
      setText(p.status, state.round === 0 ? 'setup' : 'round ' + state.round + ', ' + seatName(state.current) + "'s turn, " + state.phase);
      setText(p.asked, state.to_act === null ? '' : seatName(state.to_act) + ': ' + state.asked);
      const terr = p.rows.map(() => 0), armies = p.rows.map(() => 0);
      state.owner.forEach((o, k) => { if (o >= 0 && o < terr.length) { terr[o]++; armies[o] += state.armies[k]; } });
      p.rows.forEach((row, s) => {
        setClass(row.tr, s < b.players && !state.alive[s] ? 'out' : '');
        setText(row.terr, String(terr[s]));
        setText(row.armies, String(armies[s]));
        setText(row.cards, s < b.players ? String(state.hand_sizes[s]) : '');
      });
      setText(p.trades, `sets traded: ${state.trades} · next set: ${state.next_value} armies · deck: ${state.deck} cards`);
      const handKey = pov === null ? 'none' : pov + ':' + state.hands[pov].join(',');
      if (handKey !== p.handKey) {
        p.handKey = handKey;
        p.hand.innerHTML = '';
        if (pov === null) {
          htmlEl('span', { class: 'hint' }, p.hand, 'hands are hidden: choose a player\u2019s point of view to see its cards');
        } else {
          htmlEl('span', { class: 'hint' }, p.hand, seatName(pov) + '\u2019s hand: ' + (state.hands[pov].length ? '' : 'no cards'));
          for (const id of state.hands[pov]) {
            const c = b.cards[id];
            const card = htmlEl('span', { class: 'card ' + c.symbol, 'data-card': id, 'data-owner': pov }, p.hand);
            htmlEl('b', {}, card, c.symbol.charAt(0).toUpperCase());
            card.appendChild(document.createTextNode(' ' + this.cardText(id)));
          }
        }
      }
      for (const c of p.continents) {
        const first = state.owner[c.members[0]];
        const held = first >= 0 && c.members.every((j) => state.owner[j] === first);
        setText(c.text, c.name + (held ? ' — held by ' + this.ownerName(first) : ''));
      }
    },
  };

  // Long names on two lines, split where the longer line is shortest.
  function splitName(name) {
    const words = name.split(' ');
    if (name.length <= 14 || words.length < 2) return [name];
    let best = [name];
    let bestLen = Infinity;
    for (let k = 1; k < words.length; k++) {
      const a = words.slice(0, k).join(' '), b = words.slice(k).join(' ');
      if (Math.max(a.length, b.length) < bestLen) { bestLen = Math.max(a.length, b.length); best = [a, b]; }
    }
    return best;
  }

  function legend(el, items) {
    const ul = htmlEl('ul', { class: 'legend' }, el);
    for (const [cls, text] of items) {
      const li = htmlEl('li', {}, ul);
      li.appendChild(htmlEl('span', { class: cls }));
      li.appendChild(document.createTextNode(text));
    }
  }

  const renderers = { skynet, painters, spiders, risk };
  const renderer = renderers[data.game];

  /* -------------------------------------------------------------- the page */
  let index = 0;
  let pov = null;
  let timer = null;
  const board = $('board');
  renderer.init(board, data.board);

  const slider = $('slider');
  slider.max = count;

  // Log filter: every kind of event this replay has.
  const kinds = [];
  for (const s of steps) for (const e of s.events || []) if (!kinds.includes(e.kind)) kinds.push(e.kind);
  const filter = $('log-filter');
  for (const k of ['all'].concat(kinds)) htmlEl('option', { value: k }, filter, k === 'all' ? 'all events' : k);

  let povSelect = null;
  if (renderer.hasPov) {
    const label = htmlEl('label', { class: 'pov' }, null, 'point of view ');
    povSelect = htmlEl('select', { id: 'pov' }, label);
    htmlEl('option', { value: '' }, povSelect, 'spectator (no hands)');
    data.seats.forEach((s, k) => htmlEl('option', { value: k }, povSelect, s.role + ' (' + s.bot + ')'));
    $('side').insertBefore(label, $('now'));
    povSelect.addEventListener('change', () => setPov(povSelect.value === '' ? null : Number(povSelect.value)));
  }

  function inputVisible(seat) {
    return !data.private_inputs || pov === seat;
  }

  function drawNow() {
    const el = $('now');
    el.innerHTML = '';
    if (index === 0) {
      htmlEl('p', { class: 'step' }, el, 'start · ' + count + ' actions recorded');
      const next = steps[0];
      if (next) htmlEl('p', {}, el, seatLabel(next.seat) + ' acts first');
      return;
    }
    const step = steps[index - 1];
    const seat = data.seats[step.seat];
    const p = htmlEl('p', { class: 'step' }, el, 'step ' + index + ' of ' + count + ' · ');
    const who = htmlEl('span', { class: 'who' }, p);
    who.appendChild(htmlEl('span', { class: 'swatch s' + step.seat }));
    who.appendChild(document.createTextNode(seatLabel(step.seat)));
    const line = htmlEl('p', { class: 'action' }, el);
    htmlEl('code', { id: 'action' }, line, step.action);
    const limit = decision[index - 1] === 0 ? seat.limits.first_turn : seat.limits.per_turn;
    const took = htmlEl('p', { class: 'time' }, el, 'took ' + ms(step.micros) + ' of ' + limit + ' ms');
    const bar = htmlEl('span', { class: 'timebar' }, took);
    const fill = htmlEl('span', {}, bar);
    const frac = limit > 0 ? step.micros / 1000 / limit : 0;
    fill.style.width = Math.min(100, frac * 100).toFixed(1) + '%';
    if (frac > 1) fill.className = 'over';
  }

  function drawInput() {
    const pre = $('input');
    if (index === 0) {
      pre.textContent = 'the input each seat reads at its turn shows here';
      return;
    }
    const step = steps[index - 1];
    if (!inputVisible(step.seat)) {
      pre.textContent = '(hidden information: choose ' + seatName(step.seat) + '\u2019s point of view to see what it read)';
      return;
    }
    const first = decision[index - 1] === 0;
    pre.textContent = (first ? data.init_inputs[step.seat] : '') + step.input + '> ' + step.action;
  }

  // The log shows the latest events up to the current step, newest first (so it never needs
  // scrolling): enough to fill its panel, few enough to update at every step.
  const LOG_LINES = 40;

  // Log lines by step and position, reused while they stay in view.
  const logLines = new Map();
  let logKind = null;

  function logLine(k, j, e) {
    const li = htmlEl('li', { class: 'ev-' + e.kind + (e.private_to !== undefined ? ' private' : '') });
    htmlEl('span', { class: 'n' }, li, k + 1);
    htmlEl('span', { class: 'swatch s' + steps[k].seat }, li);
    htmlEl('span', { class: 'text' }, li, e.text);
    if (e.kind === 'battle' && e.data) {
      const dice = htmlEl('span', { class: 'dice' }, li);
      for (const d of e.data.attack) htmlEl('span', { class: 'die attack' }, dice, d);
      htmlEl('span', { class: 'vs' }, dice, 'vs');
      for (const d of e.data.defence) htmlEl('span', { class: 'die defence' }, dice, d);
    }
    return li;
  }

  function drawLog() {
    const ol = $('log');
    const kind = filter.value || 'all';
    if (kind !== logKind) {
      logLines.clear();
      ol.innerHTML = '';
      logKind = kind;
    }
    const keys = [];
    for (let k = index - 1; k >= 0 && keys.length < LOG_LINES; k--) {
      const evs = steps[k].events || [];
      for (let j = evs.length - 1; j >= 0; j--) {
        const e = evs[j];
        if (e.private_to !== undefined && e.private_to !== pov) continue;
        if (kind !== 'all' && e.kind !== kind) continue;
        keys.push([k, j, e]);
      }
    }
    const wanted = new Set(keys.map(([k, j]) => k + ':' + j));
    for (const [key, li] of logLines) {
      if (!wanted.has(key)) { li.remove(); logLines.delete(key); }
    }
    let before = ol.firstChild;
    for (const [k, j, e] of keys) {
      const key = k + ':' + j;
      let li = logLines.get(key);
      if (!li) { li = logLine(k, j, e); logLines.set(key, li); ol.insertBefore(li, before); }
      else if (li !== before) ol.insertBefore(li, before);
      before = li.nextSibling;
      li.classList.toggle('current', k === index - 1);
    }
  }

  /* ---------------------------------------------------------- the analysis */
  // With `arena view --analyze` (or a tournament run with `analysis = true`) the page embeds every
  // decision rated against the exact solver (src/view/analysis.rs). The timeline marks the
  // blunders, the inaccuracies and the positions the solver did not settle; the side panel says
  // what the current step's decision was worth.
  const analysis = data.analysis || null;
  const MARKED = ['blunder', 'inaccuracy', 'unknown'];
  const SIGN = { blunder: '??', inaccuracy: '?!', unknown: '?', best: '' };
  const rated = new Map();
  if (analysis) for (const d of analysis.decisions) rated.set(d.step, d);
  const markedSteps = analysis ? analysis.decisions.filter((d) => MARKED.includes(d.label)).map((d) => d.step) : [];
  const markEls = new Map();
  let ratingEl = null;
  let card = null;

  // A decision in words, line by line: who, what it was, what it was worth, what it could have been.
  function ratingLines(d) {
    const lines = [[seatLabel(d.seat) + ' · step ' + d.step, 'who'], [d.text, 'label ' + d.label]];
    if (d.label === 'unknown') {
      lines.push(['not settled within ' + analysis.budget + ': no value, no label guessed', 'hint']);
    } else {
      lines.push(['value ' + d.before + ' → ' + d.after + (d.lost && analysis.unit === 'points' ? ' (' + d.lost + ' point' + (d.lost > 1 ? 's' : '') + ' lost)' : ''), 'value']);
    }
    lines.push(['played ' + d.played, 'played']);
    lines.push(['best ' + d.best, 'best']);
    return lines;
  }

  function fillLines(el, lines) {
    el.innerHTML = '';
    for (const [text, cls] of lines) htmlEl('p', { class: cls }, el, text);
  }

  function buildAnalysis() {
    const el = $('analysis');
    htmlEl('h2', {}, el, 'analysis');
    if (!analysis.exact) {
      htmlEl('p', { class: 'hint', id: 'no-analysis' }, el, analysis.statement || 'no exact analysis exists for this game');
      return;
    }
    if (analysis.statement) htmlEl('p', { class: 'hint' }, el, analysis.statement);
    const ul = htmlEl('ul', { class: 'legend marks-legend', id: 'marks-legend' }, el);
    const names = { blunder: 'blunder: a result thrown away', inaccuracy: analysis.unit === 'points' ? 'inaccuracy: points lost' : 'inaccuracy', unknown: 'unknown: not settled' };
    for (const label of MARKED) {
      if (label === 'inaccuracy' && analysis.unit !== 'points') continue;
      const li = htmlEl('li', { 'data-label': label }, ul);
      htmlEl('span', { class: 'mark-swatch ' + label }, li, SIGN[label]);
      li.appendChild(document.createTextNode(names[label]));
    }
    const t = htmlEl('table', { class: 'players rated' }, el);
    const head = htmlEl('tr', {}, t);
    const columns = [['', ''], ['seat', ''], ['accuracy', 'best moves among the decisions rated'], ['??', 'blunders'], ['?!', 'inaccuracies'], ['?', 'unknown']];
    for (const [h, title] of columns) htmlEl('th', title ? { title } : {}, head, h);
    for (const s of analysis.seats) {
      const tr = htmlEl('tr', { 'data-seat': s.seat, title: s.role + ' (' + s.bot + '): ' + s.decisions + ' decisions, ' + s.analysed + ' rated' }, t);
      htmlEl('td', {}, tr).appendChild(htmlEl('span', { class: 'swatch s' + s.seat }));
      htmlEl('td', {}, tr, s.role);
      htmlEl('td', { class: 'num' }, tr, s.accuracy === null ? '–' : (s.accuracy * 100).toFixed(0) + '%');
      htmlEl('td', { class: 'num' }, tr, s.blunders);
      htmlEl('td', { class: 'num' }, tr, s.inaccuracies);
      htmlEl('td', { class: 'num' }, tr, s.unknown);
    }
    htmlEl('p', { class: 'hint budget' }, el, 'value: ' + analysis.value + ' · solver budget ' + analysis.budget + ' per decision');
    ratingEl = htmlEl('div', { id: 'rating' }, el);

    const box = $('marks');
    for (const d of analysis.decisions) {
      if (!MARKED.includes(d.label)) continue;
      const b = htmlEl('button', {
        type: 'button', class: 'mark ' + d.label, 'data-step': d.step, 'data-label': d.label, 'data-seat': d.seat,
        'aria-label': 'step ' + d.step + ': ' + seatName(d.seat) + ' ' + d.text,
      }, box, SIGN[d.label]);
      // The slider's thumb centre runs from half a thumb in to half a thumb short of the end.
      b.style.left = 'calc(8px + (100% - 16px) * ' + (count ? d.step / count : 0) + ')';
      b.addEventListener('click', () => { pause(); goto(d.step); });
      b.addEventListener('mouseenter', () => showCard(b, d));
      b.addEventListener('focus', () => showCard(b, d));
      b.addEventListener('mouseleave', hideCard);
      b.addEventListener('blur', hideCard);
      markEls.set(d.step, b);
    }
    card = htmlEl('div', { id: 'mark-card', hidden: '' }, document.body);
  }

  function showCard(mark, d) {
    fillLines(card, ratingLines(d));
    card.className = d.label;
    card.hidden = false;
    const r = mark.getBoundingClientRect();
    const w = card.offsetWidth, h = card.offsetHeight;
    card.style.left = Math.max(4, Math.min(window.innerWidth - w - 4, r.left + r.width / 2 - w / 2)) + 'px';
    card.style.top = Math.max(4, r.top - h - 6) + 'px';
  }

  function hideCard() {
    if (card) card.hidden = true;
  }

  let currentMark = null;
  function drawAnalysis() {
    if (!analysis || !analysis.exact) return;
    const mark = markEls.get(index) || null;
    if (mark !== currentMark) {
      if (currentMark) currentMark.classList.remove('current');
      if (mark) mark.classList.add('current');
      currentMark = mark;
    }
    const d = rated.get(index);
    if (index === 0) {
      fillLines(ratingEl, [['at the start: ' + analysis.start, 'value']]);
    } else if (d) {
      fillLines(ratingEl, ratingLines(d));
    } else {
      fillLines(ratingEl, [['step ' + index + ' was not rated', 'hint']]);
    }
    ratingEl.className = d ? d.label : '';
  }

  // The next (dir 1) or previous (dir -1) marked step from here.
  function gotoMark(dir) {
    const next = dir > 0 ? markedSteps.find((s) => s > index) : markedSteps.slice().reverse().find((s) => s < index);
    if (next !== undefined) goto(next);
  }

  function drawResult() {
    const el = $('result');
    const overlay = $('overlay');
    el.innerHTML = '';
    const final = index === count;
    el.classList.toggle('final', final);
    htmlEl('h2', {}, el, 'result');
    if (!final) {
      htmlEl('p', { class: 'hint' }, el, 'shown at the last step (End)');
      overlay.hidden = true;
      return;
    }
    const r = data.result;
    const winner = r.winner === null ? 'no single winner' : r.winner + ' wins';
    htmlEl('p', { class: 'winner' }, el, winner);
    const dl = htmlEl('dl', { class: 'facts' }, el);
    const fact = (k, v) => { htmlEl('dt', {}, dl, k); htmlEl('dd', { 'data-field': k }, dl, v); };
    fact('reason', r.reason);
    fact('termination', r.termination);
    if (r.culprit !== null) fact('culprit', seatLabel(r.culprit));
    if (r.detail) fact('detail', r.detail);
    fact('scores', r.scores.map((s, k) => seatName(k) + ' ' + s).join(', '));
    fact('actions', r.turns);
    fact('match time', r.duration_ms.toFixed(1) + ' ms');
    const tails = (r.reports || []).map((rep, k) => [k, rep.stderr_tail || []]).filter(([, t]) => t.length);
    for (const [k, tail] of tails) {
      htmlEl('p', { class: 'stderr-title' }, el, 'stderr of ' + seatLabel(k) + ' (last lines)');
      htmlEl('pre', { class: 'stderr' }, el, tail.join('\n'));
    }
    overlay.hidden = false;
    overlay.className = r.termination === 'normal' ? '' : 'fault';
    overlay.textContent = winner + ' — ' + (r.termination === 'normal' ? r.reason : r.termination + ': ' + (r.detail || r.reason));
  }

  function draw() {
    const state = states[index];
    renderer.draw(state, index);
    renderer.panel(state, index, $('game-panel'), pov);
    drawNow();
    drawInput();
    drawLog();
    drawResult();
    drawAnalysis();
    slider.value = index;
    $('counter').textContent = index + ' / ' + count;
    // The debug panels (assets/viewer/debug.js) follow the step.
    document.dispatchEvent(new CustomEvent('arena:step', { detail: { index } }));
  }

  function goto(i) {
    index = Math.max(0, Math.min(count, i));
    draw();
  }

  function setPov(seat) {
    pov = seat;
    logKind = null;
    if (povSelect) povSelect.value = seat === null ? '' : String(seat);
    draw();
  }

  function play() {
    if (timer !== null) { pause(); return; }
    if (index >= count) goto(0);
    $('play').textContent = '■ pause';
    timer = setInterval(() => {
      goto(index + 1);
      if (index >= count) pause();
    }, Number($('speed').value));
  }

  function pause() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    $('play').textContent = '▶ play';
  }

  $('first').addEventListener('click', () => { pause(); goto(0); });
  $('back').addEventListener('click', () => { pause(); goto(index - 1); });
  $('forward').addEventListener('click', () => { pause(); goto(index + 1); });
  $('last').addEventListener('click', () => { pause(); goto(count); });
  $('play').addEventListener('click', play);
  $('speed').addEventListener('change', () => { if (timer !== null) { pause(); play(); } });
  slider.addEventListener('input', () => { pause(); goto(Number(slider.value)); });
  filter.addEventListener('change', drawLog);
  document.addEventListener('keydown', (e) => {
    if (e.target.tagName === 'SELECT' || e.altKey || e.ctrlKey || e.metaKey) return;
    const keys = { ArrowLeft: () => goto(index - 1), ArrowRight: () => goto(index + 1), Home: () => goto(0), End: () => goto(count) };
    if (analysis && analysis.exact) { keys.n = () => gotoMark(1); keys.p = () => gotoMark(-1); }
    if (keys[e.key]) { e.preventDefault(); pause(); keys[e.key](); }
    else if (e.key === ' ') { e.preventDefault(); play(); }
  });

  if (analysis) buildAnalysis();
  window.arenaViewer = { goto, setPov, count, data, seatLabel, get index() { return index; } };
  draw();
})();
