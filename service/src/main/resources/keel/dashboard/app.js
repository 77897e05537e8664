// Keel's dashboard: plain JavaScript over the REST API (no build step). Pages are chosen by the URL's hash:
// #/ experiments, #/experiments/<id>[/trials/<n>], #/pipelines[/<id>], #/models[/<name>/<version>],
// #/data[/<table>], #/pools[/<name>]; any other hash is a "not found" page. An experiment's page follows its
// Server-Sent Events (read with fetch, so that the bearer token can be sent).
'use strict';

const main = document.getElementById('main');
const liveBadge = document.getElementById('live');
// Tableau's 10 categorical colours, chosen to stay apart from each other; series past the tenth repeat them
// dashed, then dotted.
const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f',
  '#bab0ac'];
const DASHES = ['', '7 4', '2 3'];
let leavePage = () => {};

function esc(v) {
  return String(v ?? '').replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}
function num(v, digits = 4) {
  return v === undefined || v === null || v === '' ? '' : Number(v).toFixed(digits).replace(/\.?0+$/, '');
}
function state(s) { return `<span class="state ${esc(s)}">${esc(s || '—')}</span>`; }
function bytes(n) {
  if (!n) return '0 B';
  const u = ['B', 'KB', 'MB', 'GB', 'TB']; let i = 0; let v = Number(n);
  while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
  return `${v.toFixed(i ? 1 : 0)} ${u[i]}`;
}
function lengthText(l) {
  if (l === undefined || l === null) return '';
  if (typeof l !== 'object') return String(l);
  const [unit, value] = Object.entries(l)[0] || ['', ''];
  return unit ? `${value} ${unit}` : '';
}
function time(t) { return t ? String(t).replace('T', ' ').substring(0, 19) : ''; }
function millisTime(m) { return m && Number(m) ? time(new Date(Number(m)).toISOString()) : ''; }
function hparamsText(h) {
  return Object.entries(h || {}).map(([k, x]) => `${k}=${typeof x === 'number' ? num(x, 6) : x}`).join(', ');
}
// The last part of a table's URI: its name under the storage root's tables/.
function tableName(uri) { return String(uri || '').replace(/\/+$/, '').split('/').pop(); }
function dataLink(uri, version) {
  if (!uri) return '';
  return `<a href="#/data/${encodeURIComponent(uri)}" title="${esc(uri)}">${esc(tableName(uri))}</a>`
    + (version !== undefined && version !== null ? ` v${esc(version)}` : '');
}
function experimentLink(experimentId) {
  return experimentId ? `<a href="#/experiments/${encodeURIComponent(experimentId)}">${esc(experimentId)}</a>` : '';
}
function trialLink(experimentId, trialId, text) {
  return `<a href="#/experiments/${encodeURIComponent(experimentId)}/trials/${encodeURIComponent(trialId)}">${text ?? esc(trialId)}</a>`;
}

function headers() {
  const token = sessionStorage.getItem('keel-token');
  return token ? { Authorization: `Bearer ${token}` } : {};
}

async function api(path, options = {}) {
  const r = await fetch(path, { ...options, headers: { ...headers(), ...(options.headers || {}) } });
  if (r.status === 401) { askToken(); throw new Error('this API needs its token'); }
  const body = await r.text();
  if (!r.ok) {
    let message = body;
    try { message = JSON.parse(body).message || body; } catch (e) { /* not JSON */ }
    throw new Error(`${r.status}: ${message}`);
  }
  return body ? JSON.parse(body) : {};
}

function askToken() {
  leavePage();
  main.innerHTML = `<h1>This API needs its bearer token</h1>
    <p class="muted">The server was started with KEEL_API_TOKEN. The token stays in this tab only.</p>
    <form class="token"><input type="password" placeholder="token" autocomplete="off"><button>Use</button></form>`;
  main.querySelector('form').onsubmit = e => {
    e.preventDefault();
    sessionStorage.setItem('keel-token', main.querySelector('input').value.trim());
    route();
  };
}

// Server-Sent Events over fetch: calls onEvent(name, data) per event; reconnects after a network error
// until the server ends the stream (the experiment ended) or the page is left.
function follow(path, onEvent) {
  const abort = new AbortController();
  let stopped = false;
  (async function connect() {
    while (!stopped) {
      try {
        const r = await fetch(path, { headers: { ...headers(), Accept: 'text/event-stream' }, signal: abort.signal });
        if (r.status === 401) { askToken(); return; }
        if (!r.ok) {
          let message = await r.text();
          try { message = JSON.parse(message).message || message; } catch (e) { /* not JSON */ }
          onEvent(r.status === 404 ? 'gone' : 'problem', JSON.stringify({ message: `${r.status}: ${message}` }));
          return;
        }
        liveBadge.textContent = '● live';
        const reader = r.body.getReader();
        const decoder = new TextDecoder();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) { liveBadge.textContent = ''; return; }
          buffer += decoder.decode(value, { stream: true });
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end); buffer = buffer.slice(end + 2);
            let name = 'message'; const data = [];
            for (const line of block.split('\n')) {
              if (line.startsWith('event:')) name = line.slice(6).trim();
              else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
            }
            if (data.length) onEvent(name, data.join('\n'));
          }
        }
      } catch (e) {
        if (stopped) return;
        liveBadge.textContent = '○ reconnecting';
        await new Promise(res => setTimeout(res, 3000));
      }
    }
  })();
  return () => { stopped = true; abort.abort(); liveBadge.textContent = ''; };
}

// ---- charts --------------------------------------------------------------------------------------
function seriesStyle(i) {
  return { color: PALETTE[i % PALETTE.length], dash: DASHES[Math.floor(i / PALETTE.length) % DASHES.length] };
}

// An SVG line chart of series [{label, key, points: [[x, y], ...]}]; hovering shows the nearest point's values
// (attachChartTips wires it after the chart is in the page).
function lineChart(id, series, xLabel, empty) {
  const points = series.flatMap(s => s.points);
  if (!points.length) return `<p class="muted" id="${esc(id)}">${esc(empty)}</p>`;
  const W = 720, H = 300, L = 60, R = 16, T = 12, B = 36;
  const xs = points.map(p => p[0]), ys = points.map(p => p[1]);
  const x0 = 0, x1 = Math.max(...xs) || 1;
  let y0 = Math.min(...ys), y1 = Math.max(...ys);
  const pad = Math.max((y1 - y0) * 0.05, Math.abs(y1) * 0.01, 1e-6); y0 -= pad; y1 += pad;
  const X = x => L + (x - x0) / (x1 - x0) * (W - L - R);
  const Y = y => T + (1 - (y - y0) / (y1 - y0)) * (H - T - B);
  const ticks = (a, b) => Array.from({ length: 5 }, (_, i) => a + (b - a) * i / 4);
  const grid = ticks(y0, y1).map(y => `<line x1="${L}" x2="${W - R}" y1="${Y(y)}" y2="${Y(y)}" stroke="#eaecf0"/>
    <text x="${L - 6}" y="${Y(y) + 4}" text-anchor="end">${num(y, 3)}</text>`).join('')
    + ticks(x0, x1).map(x => `<text x="${X(x)}" y="${H - B + 16}" text-anchor="middle">${Math.round(x)}</text>`).join('');
  const lines = series.map((s, i) => {
    const { color, dash } = seriesStyle(i);
    const d = s.points.map((p, j) => `${j ? 'L' : 'M'}${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join(' ');
    return `<g class="series" data-series="${esc(s.key)}"><path data-trial="${esc(s.key)}" data-points="${s.points.length}" d="${d}"
      fill="none" stroke="${color}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`
      + s.points.map(p => `<circle cx="${X(p[0]).toFixed(1)}" cy="${Y(p[1]).toFixed(1)}" r="3.5" fill="${color}"
        data-label="${esc(s.label)}" data-x="${p[0]}" data-y="${p[1]}"/>`).join('') + '</g>';
  }).join('');
  const legend = series.map((s, i) => {
    const { color, dash } = seriesStyle(i);
    return `<span data-series="${esc(s.key)}"><svg width="22" height="8"><line x1="0" x2="22" y1="4" y2="4" stroke="${color}"
      stroke-width="3"${dash ? ` stroke-dasharray="${dash}"` : ''}/></svg>${esc(s.label)}</span>`;
  }).join('');
  return `<div class="chart"><svg id="${esc(id)}" class="plot" viewBox="0 0 ${W} ${H}" width="100%" role="img"
    aria-label="${esc(id)}">${grid}
    <line x1="${L}" x2="${L}" y1="${T}" y2="${H - B}" stroke="#98a2b3"/><line x1="${L}" x2="${W - R}" y1="${H - B}" y2="${H - B}" stroke="#98a2b3"/>
    <text x="${(L + W - R) / 2}" y="${H - 4}" text-anchor="middle">${esc(xLabel)}</text>${lines}</svg>
    <div class="tip" hidden></div></div><div class="legend">${legend}</div>`;
}

// Hovering a chart shows the values of the point nearest the pointer and brings its series forward.
function attachChartTips(root, xLabel) {
  root.querySelectorAll('.chart').forEach(chart => {
    const svg = chart.querySelector('svg.plot');
    const tip = chart.querySelector('.tip');
    const circles = [...svg.querySelectorAll('circle')];
    const clear = () => {
      tip.hidden = true;
      svg.querySelectorAll('g.series').forEach(g => g.classList.remove('dim', 'hot'));
      circles.forEach(c => c.setAttribute('r', '3.5'));
    };
    svg.addEventListener('mouseleave', clear);
    svg.addEventListener('mousemove', e => {
      const m = svg.getScreenCTM();
      if (!m) return;
      const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
      let best = null; let bestD = Infinity;
      for (const c of circles) {
        const d = Math.hypot(c.cx.baseVal.value - p.x, c.cy.baseVal.value - p.y);
        if (d < bestD) { best = c; bestD = d; }
      }
      if (!best || bestD > 40) { clear(); return; }
      const g = best.parentNode;
      svg.querySelectorAll('g.series').forEach(s => { s.classList.toggle('dim', s !== g); s.classList.toggle('hot', s === g); });
      circles.forEach(c => c.setAttribute('r', c === best ? '6' : '3.5'));
      tip.textContent = `${best.dataset.label}: ${num(best.dataset.y)} at ${best.dataset.x} ${xLabel}`;
      tip.hidden = false;
      const box = chart.getBoundingClientRect();
      const at = best.getBoundingClientRect();
      tip.style.left = `${Math.min(at.left - box.left + 10, box.width - tip.offsetWidth - 4)}px`;
      tip.style.top = `${Math.max(at.top - box.top - tip.offsetHeight - 8, 0)}px`;
    });
  });
}

// ---- experiments ---------------------------------------------------------------------------------
async function experimentsPage() {
  const render = async () => {
    const page = await api('/api/v1/experiments?limit=200');
    const rows = await Promise.all(page.experiments.map(async e => {
      let progress = e.state === 'COMPLETED' ? 1 : null;
      let best = e.best_metric;
      if (e.state === 'ACTIVE' || e.state === 'PAUSED') {
        try { const s = await api(`/api/v1/experiments/${encodeURIComponent(e.experiment_id)}`); progress = s.progress || 0; best = s.best_metric ?? best; } catch (err) { /* gone from Temporal */ }
      }
      return { ...e, progress, best };
    }));
    main.innerHTML = `<h1>Experiments</h1><p class="muted">${page.total} in the catalog, newest first</p>
      <table id="experiments"><thead><tr><th>Experiment</th><th>Name</th><th>State</th><th>Progress</th>
      <th>Best</th><th>Data</th><th>Updated (UTC)</th></tr></thead><tbody>${rows.map(e => `
      <tr data-experiment="${esc(e.experiment_id)}"><td>${experimentLink(e.experiment_id)}</td>
      <td>${esc(e.name)}</td><td>${state(e.state)}</td>
      <td>${e.progress === null ? '' : `<span class="bar"><span style="width:${Math.round(e.progress * 100)}%"></span></span> ${Math.round(e.progress * 100)}%`}</td>
      <td class="num">${e.best === undefined || e.best === null ? '' : `${esc(e.metric)} ${num(e.best)}`}</td>
      <td class="wrap">${dataLink(e.data_table, e.data_version)}</td><td>${time(e.time)}</td></tr>`).join('')}
      </tbody></table>${rows.length ? '' : '<p class="muted">No experiment yet: <code>keel experiment create config.yaml</code>.</p>'}`;
  };
  await render();
  const timer = setInterval(() => render().catch(showError), 5000);
  leavePage = () => clearInterval(timer);
}

// What the last pause/activate/kill button did, shown until the page is left (the page re-renders on each event).
let actionNote = '';

function experimentPage(id) {
  main.innerHTML = `<p class="muted">Waiting for experiment ${esc(id)}…</p>`;
  actionNote = '';
  leavePage = follow(`/api/v1/experiments/${encodeURIComponent(id)}/events`, (name, data) => {
    if (name === 'experiment') renderExperiment(JSON.parse(data));
    else if (name === 'problem' || name === 'gone') {
      const message = JSON.parse(data).message;
      if (name === 'gone' && !document.getElementById('summary')) {
        main.innerHTML = `<h1>Not found</h1><p class="error" id="note">${esc(message)}</p>`;
        return;
      }
      const note = document.getElementById('note') || main.appendChild(document.createElement('p'));
      note.id = 'note'; note.className = 'error'; note.textContent = message;
    }
  });
}

async function control(id, what) {
  if (what === 'kill' && !confirm(`Kill experiment ${id}? Its trials stop for good.`)) return;
  try {
    await api(`/api/v1/experiments/${encodeURIComponent(id)}/${what}`, { method: 'POST' });
    actionNote = `${what} requested`;
  } catch (e) {
    if (/needs its token/.test(e.message)) return;
    actionNote = `${what} failed: ${e.message}`;
  }
  const note = document.getElementById('action');
  if (note) note.textContent = actionNote;
}

function controls(e) {
  if (!e.running) return '';
  const button = (what, label) => `<button data-action="${what}" class="${what}">${label}</button>`;
  return `<div class="controls">${e.state === 'PAUSED' ? button('activate', 'Activate') : button('pause', 'Pause')}
    ${button('kill', 'Kill')}<span class="muted" id="action">${esc(actionNote)}</span></div>`;
}

function renderExperiment(v) {
  const e = v.experiment;
  const trials = v.trials || [];
  const saved = v.checkpoints.filter(c => c.state === 'SAVED');
  const unit = e.unit || unitOf(trials);
  const groups = trials.some(t => t.group);
  main.innerHTML = `
    <div class="title"><h1>${esc(e.name || e.experiment_id)} ${state(e.state)}</h1>${controls(e)}</div>
    <div class="muted">${esc(e.experiment_id)}${e.live ? '' : ' · from the catalog (Temporal no longer has it)'}</div>
    ${e.error ? `<p class="error">${esc(e.error)}</p>` : ''}${e.unanswered ? `<p class="muted" id="unanswered">${esc(e.unanswered)}</p>` : ''}
    <div class="summary card" id="summary">
      <div><b>Searcher</b>${esc(e.searcher) || '—'}</div>
      <div><b>Metric</b>${esc(e.metric)} (${e.smaller_is_better ? 'smaller' : 'larger'} is better)</div>
      <div><b>Progress</b><span class="bar"><span style="width:${Math.round((e.progress || 0) * 100)}%"></span></span> ${Math.round((e.progress || 0) * 100)}%</div>
      <div><b>Best</b>${e.best_metric === undefined ? '—' : `${num(e.best_metric)}${e.best_trial_id ? ` (${trialLink(e.experiment_id, e.best_trial_id, `trial ${esc(e.best_trial_id)}`)})` : ''}`}</div>
      <div><b>Trials</b><span id="trial-count">${trials.length}</span>${e.planned_trials ? ` of ${esc(e.planned_trials)} planned` : ''}</div>
      <div class="wrap"><b>Data</b>${dataLink(e.data?.uri, e.data?.version) || '—'}</div>
      <div><b>Checkpoints</b>${saved.length} saved, ${v.checkpoints.length - saved.length} deleted by GC</div>
      ${e.submitted_by ? `<div><b>Submitted by</b>${esc(e.submitted_by)}</div>` : ''}
      ${e.waiting_trials ? `<div id="waiting"><b>Waiting</b>${esc(e.waiting_trials)} trial(s) for slots of pool ${esc(e.resource_pool || 'cpu')}</div>` : ''}
    </div>
    <div class="grid">
      <section><h2>Learning curves: ${esc(v.curves.metric)} by batches trained</h2><div class="card">${lineChart('curves',
        (v.curves.series || []).map(s => ({ key: s.trial_id, label: `trial ${s.trial_id}`, points: s.points })), 'batches',
        'No validation yet.')}</div></section>
      <section><h2>Rungs</h2><div class="card" id="rungs">${rungsHtml(v, unit)}</div></section>
    </div>
    <h2>Trials</h2>
    <table id="trials"><thead><tr><th>Trial</th>${groups ? '<th>Bracket</th>' : ''}<th>State</th><th>Hyperparameters</th><th>Best</th><th>Latest</th>
      <th>Trained</th><th>Target</th><th>Restarts</th><th>Ranks</th><th></th></tr></thead><tbody>${trials.map(t => `
      <tr data-trial="${esc(t.trial_id)}"><td>${trialLink(e.experiment_id, t.trial_id)}</td>${groups ? `<td>${esc(t.group)}</td>` : ''}<td>${state(t.state)}</td>
      <td>${esc(hparamsText(t.hparams))}</td>
      <td class="num">${num(t.best_metric)}</td><td class="num">${num(t.latest_metric)}</td>
      <td>${esc(lengthText(t.completed_length ?? t.completed_units))}</td><td>${esc(lengthText(t.target_length))}</td>
      <td class="num">${esc(t.restarts || 0)}</td>
      <td>${esc((t.ranks || []).map(r => `rank ${r.rank ?? 0} @ ${r.host || r.worker_identity || '?'} ${r.device || ''}`).join('; '))}</td>
      <td class="muted">${esc(t.waiting ? t.waiting + (t.waiting_since ? ` for ${waitedFor(t.waiting_since)}` : '') : t.error || '')}</td></tr>`).join('')}</tbody></table>
    <h2>Checkpoints</h2>
    ${checkpointsTable(v.checkpoints, v.curves.metric, e.experiment_id)}
    <h2>Activity</h2>
    ${activityTable(v.activity || [])}
    <h2>Config</h2>
    <pre class="card config" id="config">${esc(yaml(v.config || {}))}</pre>`;
  attachChartTips(main, 'batches');
  main.querySelectorAll('.controls button').forEach(b => { b.onclick = () => control(e.experiment_id, b.dataset.action); });
}

// Who did what to the experiment through the API (the audit table), oldest first.
function activityTable(entries) {
  if (!entries.length) return '<p class="muted">Nothing done through the API yet.</p>';
  return `<table id="activity"><thead><tr><th>Time</th><th>Who</th><th>Role</th><th>Action</th><th>Status</th></tr></thead><tbody>${
    entries.map(a => `<tr><td>${esc(a.time)}</td><td>${esc(a.who)}</td><td>${esc(a.role)}</td><td>${esc(a.action)}</td>
      <td class="num">${esc(a.status)}</td></tr>`).join('')}</tbody></table>`;
}

// How long since an RFC 3339 time: 45s, 2m10s, 1h05m.
function waitedFor(since) {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(since)) / 1000));
  return s >= 3600 ? `${Math.floor(s / 3600)}h${String(Math.floor(s / 60) % 60).padStart(2, '0')}m`
    : s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

function checkpointsTable(checkpoints, metric, experimentId) {
  return `<table id="checkpoints"><thead><tr><th>Trial</th><th>Checkpoint</th><th>State</th><th>Batches</th><th>Length</th>
      <th>${esc(metric)}</th><th>Size</th><th>URI</th></tr></thead><tbody>${checkpoints.map(c => `
      <tr data-checkpoint="${esc(c.uuid)}"><td>${trialLink(experimentId, c.trial_id)}</td><td>${esc(c.uuid.substring(0, 8))}</td><td>${state(c.state)}</td>
      <td class="num">${esc(c.batches)}</td><td class="num">${esc(c.length ?? '')}</td><td class="num">${num(c.metric)}</td>
      <td class="num">${bytes(c.size_bytes)}</td><td class="muted wrap">${esc(c.uri)}</td></tr>`).join('')}</tbody></table>`;
}

// A config (protobuf JSON) in YAML's shape, for reading: plain words and numbers (int64s come as strings) unquoted.
function scalar(value) {
  return typeof value === 'string' && /^[A-Za-z0-9_./:@+-]+$/.test(value) && !/^(true|false|null|yes|no|on|off|~)$/i.test(value)
    ? value : JSON.stringify(value);
}
function yaml(value, indent = '') {
  if (value === null || typeof value !== 'object') return scalar(value);
  const entries = Array.isArray(value) ? value.map((x, i) => [i, x]) : Object.entries(value);
  if (!entries.length) return Array.isArray(value) ? '[]' : '{}';
  if (Array.isArray(value) && value.every(x => x === null || typeof x !== 'object')) return `[${value.map(scalar).join(', ')}]`;
  return entries.map(([k, x]) => {
    const head = Array.isArray(value) ? `${indent}-` : `${indent}${k}:`;
    return x !== null && typeof x === 'object' && Object.keys(x).length && !(Array.isArray(x) && x.every(y => y === null || typeof y !== 'object'))
      ? `${head}\n${yaml(x, `${indent}  `)}` : `${head} ${yaml(x, `${indent}  `)}`;
  }).join('\n');
}

// The searcher's unit (batches, records or epochs), from a trial's target length.
function unitOf(trials) {
  const t = trials.find(x => x.target_length && typeof x.target_length === 'object');
  return t ? Object.keys(t.target_length)[0] : '';
}

const OUTCOMES = { promoted: '↑', stopped: '■', completed: '✓', waiting: '…', training: '▸' };

function rungsHtml(v, unit) {
  const rungs = v.rungs || [];
  if (!rungs.some(r => r.trials.length)) return '<p class="muted">No trial has reached a rung yet.</p>';
  const id = v.experiment.experiment_id;
  const rung = r => `<div class="rung" data-bracket="${esc(r.bracket || '')}" data-length="${r.length}"><b>${r.length} ${esc(unit)}</b>${r.trials.length
    ? r.trials.map(t => `<a class="chip ${t.outcome}" data-trial="${t.trial_id}" title="${t.outcome}"
      href="#/experiments/${encodeURIComponent(id)}/trials/${t.trial_id}">trial ${t.trial_id}${t.metric === undefined ? '' : `: ${num(t.metric)}`} ${OUTCOMES[t.outcome] || ''}</a>`).join('')
    : '<span class="muted">no trial yet</span>'}</div>`;
  const brackets = [];
  for (const r of rungs) {
    const last = brackets[brackets.length - 1];
    if (last && last.name === (r.bracket || '')) last.rungs.push(r); else brackets.push({ name: r.bracket || '', rungs: [r] });
  }
  const inferred = v.rungs_from === 'validations' && brackets.some(b => b.name)
    ? '<p class="muted" id="rungs-inferred">Brackets inferred from the lengths each trial was validated at: Temporal no longer has this experiment\'s searcher.</p>' : '';
  return brackets.map(b => b.name ? `<div class="bracket" data-bracket="${esc(b.name)}"><h3>${esc(b.name)}</h3>${b.rungs.map(rung).join('')}</div>`
    : b.rungs.map(rung).join('')).join('')
    + `${inferred}<p class="muted">↑ promoted to the next rung · ■ stopped here · ✓ trained to the end · … may still be promoted · ▸ training toward it</p>`;
}

// ---- a trial -------------------------------------------------------------------------------------
async function trialPage(id, trialId) {
  const render = async () => {
    const t = await api(`/api/v1/experiments/${encodeURIComponent(id)}/trials/${encodeURIComponent(trialId)}`);
    const e = t.experiment || {};
    const trial = t.trial || {};
    const validations = t.validations || [];
    const names = [...new Set(validations.flatMap(v => Object.keys(v.metrics || {})))].sort();
    const series = list => dedupe(list.map(n => ({ key: n, label: n,
      points: validations.filter(v => v.metrics?.[n] !== undefined).map(v => [Number(v.batches), v.metrics[n]]) })));
    const losses = names.filter(n => /loss/.test(n));
    const others = names.filter(n => !/loss/.test(n));
    const unit = e.unit || Object.keys(trial.target_length || trial.completed_length || {})[0] || '';
    main.innerHTML = `<h1>Trial ${esc(trial.trial_id)} of ${experimentLink(id)} ${state(trial.state)}</h1>
      <div class="muted">${esc(e.name)}${e.live ? '' : ' · from the catalog (Temporal no longer has it)'}</div>
      ${trial.error ? `<p class="error">${esc(trial.error)}</p>` : ''}${trial.waiting ? `<p class="muted">${esc(trial.waiting)}</p>` : ''}
      <div class="summary card" id="trial-summary">
        ${trial.group ? `<div><b>Bracket</b>${esc(trial.group)}</div>` : ''}
        <div><b>Trained</b>${esc(lengthText(trial.completed_length ?? trial.completed_units)) || '—'}${trial.target_length ? ` of ${esc(lengthText(trial.target_length))}` : ''}</div>
        <div><b>Best ${esc(e.metric)}</b>${num(trial.best_metric) || '—'}</div>
        <div><b>Latest</b>${num(trial.latest_metric) || '—'}</div>
        <div><b>Restarts</b><span id="restarts">${esc(trial.restarts || 0)}</span></div>
        ${trial.parent_trial_id && Number(trial.parent_trial_id) ? `<div><b>Forked from</b>${trialLink(id, trial.parent_trial_id, `trial ${esc(trial.parent_trial_id)}`)}</div>` : ''}
        ${trial.source_checkpoint?.uri ? `<div class="wrap"><b>Warm-started from</b>${esc(trial.source_checkpoint.uri)}</div>` : ''}
        ${(trial.ranks || []).length ? `<div><b>Ranks</b>${esc(trial.ranks.map(r => `rank ${r.rank ?? 0} @ ${r.host || r.worker_identity || '?'} ${r.device || ''}`).join('; '))}</div>` : ''}
      </div>
      <h2>Hyperparameters</h2><table id="hparams" class="kv"><tbody>${Object.entries(trial.hparams || {}).map(([k, x]) =>
        `<tr><th>${esc(k)}</th><td>${esc(typeof x === 'number' ? num(x, 6) : x)}</td></tr>`).join('')}</tbody></table>
      <div class="grid even">
        <section><h2>Loss by batches trained</h2><div class="card">${lineChart('loss-curves', series(losses), 'batches', 'No loss reported yet.')}</div></section>
        <section><h2>Validation by batches trained</h2><div class="card">${lineChart('validation-curves', series(others), 'batches', 'No validation yet.')}</div></section>
      </div>
      <h2>Validations</h2>
      <table id="validations"><thead><tr><th>Batches</th><th>Length (${esc(unit)})</th>${names.map(n => `<th>${esc(n)}</th>`).join('')}</tr></thead>
      <tbody>${validations.map(v => `<tr data-batches="${esc(v.batches)}"><td class="num">${esc(v.batches)}</td><td class="num">${esc(v.length)}</td>
        ${names.map(n => `<td class="num">${num(v.metrics?.[n])}</td>`).join('')}</tr>`).join('')}</tbody></table>
      <h2>Checkpoints</h2>
      <table id="trial-checkpoints"><thead><tr><th>Checkpoint</th><th>State</th><th>Batches</th><th>Size</th><th>URI</th></tr></thead>
      <tbody>${(t.checkpoints || []).map(c => `<tr data-checkpoint="${esc(c.uuid)}"><td>${esc(c.uuid.substring(0, 8))}</td>
        <td>${state(c.state)}</td><td class="num">${esc(c.batches)}</td><td class="num">${bytes(c.size_bytes)}</td>
        <td class="muted wrap">${esc(c.uri)}</td></tr>`).join('')}</tbody></table>
      <h2>Log</h2>
      <pre class="card log" id="logs">${(t.logs || []).map(l => esc(`${time(l.time)}  ${l.text}`)).join('\n') || 'nothing logged yet'}</pre>`;
    attachChartTips(main, 'batches');
    return e.running;
  };
  if (await render()) {
    const timer = setInterval(() => render().then(running => { if (!running) clearInterval(timer); }).catch(showError), 3000);
    leavePage = () => clearInterval(timer);
  }
}

// Metrics with the same values at every point (accuracy is validation_accuracy) are one line, named by both.
function dedupe(series) {
  const out = [];
  for (const s of series) {
    const same = out.find(o => JSON.stringify(o.points) === JSON.stringify(s.points));
    if (same) same.label += ` = ${s.label}`; else if (s.points.length) out.push({ ...s });
  }
  return out;
}

// ---- data ----------------------------------------------------------------------------------------
async function dataPage() {
  const page = await api('/api/v1/data?limit=1000');
  main.innerHTML = `<h1>Data</h1><p class="muted">${page.total} table${page.total === 1 ? '' : 's'} under the storage root</p>
    <table id="tables"><thead><tr><th>Table</th><th>Latest version</th><th>Updated (UTC)</th><th>URI</th></tr></thead><tbody>${page.tables.map(t => `
    <tr data-table="${esc(t.name)}"><td><a href="#/data/${encodeURIComponent(t.name)}">${esc(t.name)}</a></td><td class="num">${esc(t.latest_version)}</td>
    <td>${time(t.updated)}</td><td class="muted wrap">${esc(t.uri)}</td></tr>`).join('')}</tbody></table>
    ${page.tables.length ? '' : '<p class="muted">No table yet: a pipeline\'s ETL stage writes one (<code>keel submit pipeline.yaml</code>).</p>'}`;
}

function counts(map, order) {
  const keys = Object.keys(map || {});
  return [...(order || []).filter(k => keys.includes(k)), ...keys.filter(k => !(order || []).includes(k)).sort()];
}

async function tablePage(table) {
  const h = await api(`/api/v1/data/describe?table=${encodeURIComponent(table)}`);
  const versions = [...(h.versions || [])].reverse();
  const splits = v => counts(v.rows_per_split, ['train', 'validation', 'test']);
  const classTable = v => {
    const labels = counts(v.rows_per_label, h.class_names);
    const bySplit = v.rows_per_split_label || {};
    const columns = counts(bySplit, ['train', 'validation', 'test']);
    if (!labels.length && !columns.length) return '<p class="muted">No rows per class recorded for this version.</p>';
    const all = counts(Object.assign({}, v.rows_per_label, ...columns.map(s => bySplit[s]?.rows_per_label || {})), h.class_names);
    return `<table class="classes" data-version="${esc(v.version)}"><thead><tr><th>Class</th>${columns.map(s => `<th>${esc(s)}</th>`).join('')}<th>All splits</th></tr></thead>
      <tbody>${all.map(c => `<tr data-class="${esc(c)}"><td>${esc(c)}</td>${columns.map(s => `<td class="num">${esc(bySplit[s]?.rows_per_label?.[c] ?? 0)}</td>`).join('')}
      <td class="num">${esc(v.rows_per_label?.[c] ?? '')}</td></tr>`).join('')}</tbody></table>`;
  };
  main.innerHTML = `<h1>Table ${esc(tableName(h.table_uri) || table)}</h1><div class="muted wrap">${esc(h.table_uri)}</div>
    ${(h.class_names || []).length ? `<p>Classes: ${esc(h.class_names.join(', '))}</p>` : ''}
    <h2>Versions</h2>
    <table id="versions"><thead><tr><th>Version</th><th>Time (UTC)</th><th>Operation</th><th>Source</th><th>Checksum</th>
      <th>Rows per split</th><th>Skipped records</th><th>Notes</th></tr></thead><tbody>${versions.map(v => `
      <tr data-version="${esc(v.version ?? 0)}"><td class="num">${esc(v.version ?? 0)}</td><td>${millisTime(v.time_millis)}</td><td>${esc(v.operation)}</td>
      <td class="wrap">${esc(v.source_format)} ${esc(v.source_uri)}</td><td class="muted">${esc(String(v.source_checksum || '').substring(0, 12))}</td>
      <td>${splits(v).map(s => `${esc(s)} ${esc(v.rows_per_split[s])}`).join(' · ')}</td><td class="num">${esc(v.skipped_records ?? 0)}</td>
      <td class="wrap">${[...Object.entries(v.label_limits || {}).map(([k, n]) => `label limit ${k}=${n}`), ...(v.warnings || [])].map(esc).join('; ')}</td></tr>`).join('')}
    </tbody></table>
    <h2>Rows per class</h2>
    ${versions.map((v, i) => `<details class="version" data-version="${esc(v.version ?? 0)}"${i === 0 ? ' open' : ''}><summary>version ${esc(v.version ?? 0)}</summary>${classTable(v)}</details>`).join('')}`;
}

// ---- models --------------------------------------------------------------------------------------
async function modelsPage() {
  const m = await api('/api/v1/models');
  const versions = m.versions || [];
  main.innerHTML = `<h1>Models</h1><table id="models"><thead><tr><th>Model</th><th>Version</th><th>Stage</th>
    <th>Experiment</th><th>Trial</th><th>Data</th><th>Registered (UTC)</th></tr></thead><tbody>${versions.map(v => `
    <tr><td><a href="#/models/${encodeURIComponent(v.name)}/${v.version}">${esc(v.name)}</a></td><td>${esc(v.version)}</td>
    <td>${state(v.stage)}</td><td>${experimentLink(v.experiment_id)}</td>
    <td>${v.experiment_id && v.trial_id ? trialLink(v.experiment_id, v.trial_id) : esc(v.trial_id)}</td>
    <td>${dataLink(v.data?.uri, v.data?.version)}</td>
    <td>${millisTime(v.created_millis)}</td></tr>`).join('')}</tbody></table>
    ${versions.length ? '' : '<p class="muted">No registered model yet: a pipeline registers its best trial.</p>'}`;
}

async function modelPage(name, version) {
  const base = `/api/v1/models/${encodeURIComponent(name)}/${encodeURIComponent(version)}`;
  const [v, drift] = await Promise.all([api(base), api(`${base}/drift`).catch(() => [])]);
  const runs = (Array.isArray(drift) ? drift : []).filter(r => r.predictions?.uri);
  const box = (title, body) => `<div class="card"><b>${title}</b>${body}</div>`;
  const pipeline = v.registered_by ? `<a href="#/pipelines/${encodeURIComponent(v.registered_by)}">${esc(v.registered_by)}</a>` : '';
  main.innerHTML = `<h1>${esc(v.name)} v${esc(v.version)} ${state(v.stage)}</h1>
    <div class="muted">registered by ${pipeline || '—'}${v.code_version ? ` · code ${esc(v.code_version)}` : ''}</div>
    <h2>Lineage</h2><div class="lineage" id="lineage">
      ${box('Data', `<span class="wrap">${esc(v.data?.uri)}</span><br>version ${esc(v.data?.version ?? 0)}`)}<span class="arrow">→</span>
      ${box('Experiment', experimentLink(v.experiment_id) || '—')}<span class="arrow">→</span>
      ${box('Trial', esc(v.trial_id) || '—')}<span class="arrow">→</span>
      ${box('Checkpoint', `<span class="wrap">${esc(v.source_checkpoint_uri)}</span>`)}<span class="arrow">→</span>
      ${box('Model', `${esc(v.name)} v${esc(v.version)}<br><span class="wrap">${esc(v.checkpoint?.uri)}</span>`)}<span class="arrow">→</span>
      ${box('Predictions', runs.length ? runs.map(r => `<span class="wrap">${esc(r.predictions.uri)}</span> v${esc(r.predictions.version ?? 0)}`).join('<br>')
        : pipeline ? `see the pipeline ${pipeline}` : '<span class="muted">none yet</span>')}
    </div>
    <h2>Metrics</h2><table><tbody>${Object.entries(v.metrics || {}).map(([k, x]) => `<tr><th>${esc(k)}</th><td class="num">${num(x)}</td></tr>`).join('')}</tbody></table>
    <h2>Hyperparameters</h2><table><tbody>${Object.entries(v.hparams || {}).map(([k, x]) => `<tr><th>${esc(k)}</th><td>${esc(x)}</td></tr>`).join('')}</tbody></table>
    <h2>Stage history</h2><table><tbody>${(v.history || []).map(h => `<tr><td>${esc(h.stage)}</td><td>${esc(h.reason)}</td><td class="muted">${h.who ? `by ${esc(h.who)}` : ''}</td></tr>`).join('')}</tbody></table>
    ${v.submitted_by ? `<p class="muted">Submitted by ${esc(v.submitted_by)}</p>` : ''}`;
}

// ---- pipelines -----------------------------------------------------------------------------------
async function pipelinesPage() {
  const render = async () => {
    const page = await api('/api/v1/pipelines?limit=200');
    main.innerHTML = `<h1>Pipelines</h1><p class="muted">${page.total} in Temporal (within its retention), newest first</p>
      <table id="pipelines"><thead><tr><th>Pipeline</th><th>Status</th><th>Stage</th><th>Test accuracy</th><th>Data</th>
      <th>Started (UTC)</th><th>Closed (UTC)</th></tr></thead><tbody>${page.pipelines.map(p => `
      <tr data-pipeline="${esc(p.pipeline_id)}"><td><a href="#/pipelines/${encodeURIComponent(p.pipeline_id)}">${esc(p.pipeline_id)}</a></td>
      <td>${state(p.status.toUpperCase())}</td><td>${esc(p.stage)}</td><td class="num">${num(p.test_accuracy)}</td>
      <td class="wrap">${dataLink(p.data_table)}</td><td>${time(p.started)}</td><td>${time(p.closed)}</td></tr>`).join('')}</tbody></table>
      ${page.pipelines.length ? '' : '<p class="muted">No pipeline yet: <code>keel submit pipeline.yaml</code>.</p>'}`;
  };
  await render();
  const timer = setInterval(() => render().catch(showError), 5000);
  leavePage = () => clearInterval(timer);
}

// Why the pipeline skipped a stage ("train: the best checkpoint already has ..."), or undefined.
function skipped(p, stage) {
  return (p.skipped || []).find(line => line.startsWith(`${stage}:`));
}

const STAGES = ['validate', 'etl', 'search', 'train', 'register', 'infer', 'promote', 'done'];

async function pipelinePage(id) {
  const render = async () => {
    const p = await api(`/api/v1/pipelines/${encodeURIComponent(id)}`);
    const at = STAGES.indexOf(p.stage);
    main.innerHTML = `<h1>${esc(id)} ${state((p.status || '').toUpperCase())}</h1>
      ${p.error ? `<p class="error">${esc(p.failed_stage ? `${p.failed_stage}: ` : '')}${esc(p.error)}</p>` : ''}
      <h2>Stages</h2><div class="lineage" id="stages">${STAGES.map((s, i) => `<div class="card" data-stage="${s}">
        <b>${s}</b>${skipped(p, s) ? `<span class="muted" title="${esc(skipped(p, s))}">skipped</span>` : i < at || p.status === 'completed' ? 'passed' : i === at ? esc(p.status) : '<span class="muted">to come</span>'}</div>`).join('<span class="arrow">→</span>')}</div>
      <h2>What it produced</h2><table><tbody>
        <tr><th>Data</th><td class="wrap">${esc(p.data?.uri ?? p.ingest?.table?.uri)} ${p.data?.version !== undefined ? `v${esc(p.data.version)}` : ''}</td></tr>
        <tr><th>Experiment</th><td>${experimentLink(p.experiment_id) || '—'}</td></tr>
        <tr><th>Model</th><td>${p.model?.name ? `<a href="#/models/${encodeURIComponent(p.model.name)}/${p.model.version}">${esc(p.model.name)} v${esc(p.model.version)}</a> ${state(p.model.stage)}` : '—'}</td></tr>
        <tr><th>Predictions</th><td class="wrap">${esc(p.inference?.predictions?.uri ?? '')}</td></tr>
      </tbody></table>`;
    return p.status === 'running';
  };
  if (await render()) {
    const timer = setInterval(() => render().then(running => { if (!running) clearInterval(timer); }).catch(showError), 3000);
    leavePage = () => clearInterval(timer);
  }
}

// ---- pools ---------------------------------------------------------------------------------------
function ago(millis) {
  if (!millis || Number(millis) === 0) return '';
  const s = Math.max(0, Math.round((Date.now() - Number(millis)) / 1000));
  return s < 60 ? `${s}s ago` : s < 3600 ? `${Math.floor(s / 60)}m ago` : `${Math.floor(s / 3600)}h ago`;
}

async function poolsPage() {
  const render = async () => {
    const pools = (await api('/api/v1/pools')).pools || [];
    main.innerHTML = `<h1>Pools</h1><p class="muted">Training pools whose instances a provisioner sizes from the queued trials (keel pool start SPEC)</p>
      <table id="pools"><thead><tr><th>Pool</th><th>Desired</th><th>Running</th><th>Busy</th><th>Idle</th><th>Starting</th>
      <th>Failed</th><th>Gangs running / queued</th><th>Slots asked</th><th>Last decision</th></tr></thead><tbody>${pools.map(p => `
      <tr data-pool="${esc(p.spec?.name)}"><td><a href="#/pools/${encodeURIComponent(p.spec?.name)}">${esc(p.spec?.name)}</a>${p.stopped ? ' (stopped)' : ''}</td>
      <td class="num">${esc(p.desired)}</td><td class="num">${esc(p.running)}</td><td class="num">${esc(p.busy)}</td>
      <td class="num">${esc(p.idle)}</td><td class="num">${esc(p.starting)}</td><td class="num">${esc(p.failed)}</td>
      <td class="num">${esc(p.running_gangs)} / ${esc(p.queued_gangs)}</td><td class="num">${esc(p.demanded_slots)}</td>
      <td class="wrap">${esc(ago(p.last_decision?.time_millis))} ${esc(p.last_decision?.reason)}</td></tr>`).join('')}</tbody></table>
      ${pools.length ? '' : '<p class="muted">No pool provisioner runs.</p>'}`;
  };
  await render();
  const timer = setInterval(() => render().catch(showError), 5000);
  leavePage = () => clearInterval(timer);
}

async function poolPage(name) {
  const render = async () => {
    const p = await api(`/api/v1/pools/${encodeURIComponent(name)}`);
    main.innerHTML = `<h1>Pool ${esc(name)}${p.stopped ? ' (stopped)' : ''}</h1>
      <div class="summary card">
        <div><b>Desired</b>${esc(p.desired)} (min ${esc(p.spec?.min_instances)}, max ${esc(p.spec?.max_instances)})</div>
        <div><b>Running</b>${esc(p.running)}: ${esc(p.busy)} busy, ${esc(p.idle)} idle</div>
        <div><b>Starting / failed</b>${esc(p.starting)} / ${esc(p.failed)}</div>
        <div><b>Gangs</b>${esc(p.running_gangs)} running, ${esc(p.queued_gangs)} queued (${esc(p.demanded_slots)} slots)</div>
      </div>
      ${p.last_error?.message ? `<p class="error">${esc(ago(p.last_error.time_millis))}: ${esc(p.last_error.message)}</p>` : ''}
      <h2>Last decision</h2><p id="decision">${esc(ago(p.last_decision?.time_millis))} ${esc(p.last_decision?.reason || 'none yet')}</p>
      <h2>Instances</h2><table id="instances"><thead><tr><th>Instance</th><th>Phase</th><th>Since</th><th>Protected from scale-in</th></tr></thead>
      <tbody>${(p.instances || []).map(i => `<tr><td>${esc(i.instance_id)}</td><td>${state(i.phase)}</td><td>${esc(ago(i.since_millis))}</td>
      <td>${i.protected_from_scale_in ? 'yes' : ''}</td></tr>`).join('')}</tbody></table>
      ${(p.notes || []).map(n => `<p class="muted">${esc(n)}</p>`).join('')}`;
  };
  await render();
  const timer = setInterval(() => render().catch(showError), 5000);
  leavePage = () => clearInterval(timer);
}

// ---- routing -------------------------------------------------------------------------------------
function showError(e) { main.innerHTML = `<p class="error">${esc(e.message)}</p>`; }

function notFound() {
  main.innerHTML = `<h1>Not found</h1><p class="error" id="not-found">The dashboard has no page ${esc(location.hash)}.</p>
    <p class="muted">Its pages: <a href="#/">experiments</a> (#/experiments/ID, #/experiments/ID/trials/N),
    <a href="#/pipelines">pipelines</a> (#/pipelines/ID), <a href="#/models">models</a> (#/models/NAME/VERSION),
    <a href="#/data">data</a> (#/data/TABLE), <a href="#/pools">pools</a> (#/pools/NAME).</p>`;
}

// Each page: its hash's first part, how many parts it has, and what shows it.
const ROUTES = [
  ['', 0, () => experimentsPage()],
  ['experiments', 0, () => experimentsPage()],
  ['experiments', 1, p => experimentPage(p[0])],
  ['experiments', 3, p => (p[1] === 'trials' ? trialPage(p[0], p[2]) : notFound())],
  ['pipelines', 0, () => pipelinesPage()],
  ['pipelines', 1, p => pipelinePage(p[0])],
  ['models', 0, () => modelsPage()],
  ['models', 2, p => modelPage(p[0], p[1])],
  ['data', 0, () => dataPage()],
  ['data', 1, p => tablePage(p[0])],
  ['pools', 0, () => poolsPage()],
  ['pools', 1, p => poolPage(p[0])],
];

async function route() {
  leavePage(); leavePage = () => {};
  const parts = location.hash.replace(/^#\/?/, '').replace(/\/+$/, '').split('/').map(decodeURIComponent);
  const [page, ...rest] = parts;
  const found = ROUTES.find(([name, n]) => name === page && n === rest.length && rest.every(x => x !== ''));
  try {
    if (found) await found[2](rest); else notFound();
  } catch (e) {
    if (!/needs its token/.test(e.message)) showError(e);
  }
}

window.addEventListener('hashchange', route);
route();
