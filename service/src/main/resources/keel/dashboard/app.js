// Keel's dashboard: plain JavaScript over the REST API (no build step). Pages are chosen by the URL's
// hash: #/ experiments, #/experiments/<id>, #/pipelines[/<id>], #/models[/<name>/<version>], #/pools[/<name>]. An experiment's page
// follows its Server-Sent Events (read with fetch, so that the bearer token can be sent).
'use strict';

const main = document.getElementById('main');
const liveBadge = document.getElementById('live');
const PALETTE = ['#2458d3', '#d92d20', '#079455', '#dc6803', '#7a5af8', '#0e9384', '#c11574', '#475467',
  '#1570ef', '#b54708', '#6941c6', '#3b7c0f'];
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

function headers() {
  const token = sessionStorage.getItem('keel-token');
  return token ? { Authorization: `Bearer ${token}` } : {};
}

async function api(path) {
  const r = await fetch(path, { headers: headers() });
  if (r.status === 401) { askToken(); throw new Error('this API needs its token'); }
  const body = await r.text();
  if (!r.ok) {
    let message = body;
    try { message = JSON.parse(body).message || body; } catch (e) { /* not JSON */ }
    throw new Error(`${r.status}: ${message}`);
  }
  return JSON.parse(body);
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
        if (!r.ok) { onEvent('problem', JSON.stringify({ message: `${r.status} ${await r.text()}` })); return; }
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
      <tr data-experiment="${esc(e.experiment_id)}"><td><a href="#/experiments/${encodeURIComponent(e.experiment_id)}">${esc(e.experiment_id)}</a></td>
      <td>${esc(e.name)}</td><td>${state(e.state)}</td>
      <td>${e.progress === null ? '' : `<span class="bar"><span style="width:${Math.round(e.progress * 100)}%"></span></span> ${Math.round(e.progress * 100)}%`}</td>
      <td class="num">${e.best === undefined || e.best === null ? '' : `${esc(e.metric)} ${num(e.best)}`}</td>
      <td class="wrap">${esc(e.data_table)}${e.data_version !== undefined ? ` v${e.data_version}` : ''}</td><td>${time(e.time)}</td></tr>`).join('')}
      </tbody></table>${rows.length ? '' : '<p class="muted">No experiment yet: <code>keel experiment create config.yaml</code>.</p>'}`;
  };
  await render();
  const timer = setInterval(() => render().catch(showError), 5000);
  leavePage = () => clearInterval(timer);
}

function experimentPage(id) {
  main.innerHTML = `<p class="muted">Waiting for experiment ${esc(id)}…</p>`;
  leavePage = follow(`/api/v1/experiments/${encodeURIComponent(id)}/events`, (name, data) => {
    if (name === 'experiment') renderExperiment(JSON.parse(data));
    else if (name === 'problem' || name === 'gone') {
      const note = document.getElementById('note') || main.appendChild(document.createElement('p'));
      note.id = 'note'; note.className = 'error'; note.textContent = JSON.parse(data).message;
    }
  });
}

function renderExperiment(v) {
  const e = v.experiment;
  const trials = v.trials || [];
  const saved = v.checkpoints.filter(c => c.state === 'SAVED');
  main.innerHTML = `
    <h1>${esc(e.name || e.experiment_id)} ${state(e.state)}</h1>
    <div class="muted">${esc(e.experiment_id)}${e.live ? '' : ' · from the catalog (Temporal no longer has it)'}</div>
    ${e.error ? `<p class="error">${esc(e.error)}</p>` : ''}
    <div class="summary card">
      <div><b>Searcher</b>${esc(e.searcher)}</div>
      <div><b>Metric</b>${esc(e.metric)} (${e.smaller_is_better ? 'smaller' : 'larger'} is better)</div>
      <div><b>Progress</b><span class="bar"><span style="width:${Math.round((e.progress || 0) * 100)}%"></span></span> ${Math.round((e.progress || 0) * 100)}%</div>
      <div><b>Best</b>${e.best_metric === undefined ? '—' : `${num(e.best_metric)} (trial ${esc(e.best_trial_id)})`}</div>
      <div><b>Trials</b><span id="trial-count">${trials.length}</span></div>
      <div class="wrap"><b>Data</b>${esc(e.data?.uri)} ${e.data?.version !== undefined ? `v${esc(e.data.version)}` : ''}</div>
      <div><b>Checkpoints</b>${saved.length} saved, ${v.checkpoints.length - saved.length} deleted by GC</div>
    </div>
    <div class="grid">
      <section><h2>Learning curves: ${esc(v.curves.metric)} by batches trained</h2><div class="card">${curveSvg(v.curves)}</div></section>
      <section><h2>Rungs</h2><div class="card" id="rungs">${rungsHtml(v.rungs, unitOf(trials))}</div></section>
    </div>
    <h2>Trials</h2>
    <table id="trials"><thead><tr><th>Trial</th><th>State</th><th>Hyperparameters</th><th>Best</th><th>Latest</th>
      <th>Trained</th><th>Target</th><th>Restarts</th><th>Ranks</th><th></th></tr></thead><tbody>${trials.map(t => `
      <tr data-trial="${esc(t.trial_id)}"><td>${esc(t.trial_id)}</td><td>${state(t.state)}</td>
      <td>${esc(Object.entries(t.hparams || {}).map(([k, x]) => `${k}=${typeof x === 'number' ? num(x, 6) : x}`).join(', '))}</td>
      <td class="num">${num(t.best_metric)}</td><td class="num">${num(t.latest_metric)}</td>
      <td>${esc(lengthText(t.completed_length ?? t.completed_units))}</td><td>${esc(lengthText(t.target_length))}</td>
      <td class="num">${esc(t.restarts || 0)}</td>
      <td>${esc((t.ranks || []).map(r => `rank ${r.rank ?? 0} @ ${r.host || r.worker_identity || '?'} ${r.device || ''}`).join('; '))}</td>
      <td class="muted">${esc(t.waiting || t.error || '')}</td></tr>`).join('')}</tbody></table>
    <h2>Checkpoints</h2>
    <table id="checkpoints"><thead><tr><th>Trial</th><th>Checkpoint</th><th>State</th><th>Batches</th><th>Length</th>
      <th>${esc(v.curves.metric)}</th><th>Size</th><th>URI</th></tr></thead><tbody>${v.checkpoints.map(c => `
      <tr data-checkpoint="${esc(c.uuid)}"><td>${esc(c.trial_id)}</td><td>${esc(c.uuid.substring(0, 8))}</td><td>${state(c.state)}</td>
      <td class="num">${esc(c.batches)}</td><td class="num">${esc(c.length ?? '')}</td><td class="num">${num(c.metric)}</td>
      <td class="num">${bytes(c.size_bytes)}</td><td class="muted wrap">${esc(c.uri)}</td></tr>`).join('')}</tbody></table>`;
}

function curveSvg(curves) {
  const series = curves.series || [];
  const points = series.flatMap(s => s.points);
  if (!points.length) return '<p class="muted" id="curves">No validation yet.</p>';
  const W = 720, H = 320, L = 60, R = 16, T = 12, B = 36;
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
    const c = PALETTE[i % PALETTE.length];
    const d = s.points.map((p, j) => `${j ? 'L' : 'M'}${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join(' ');
    return `<path data-trial="${s.trial_id}" data-points="${s.points.length}" d="${d}" fill="none" stroke="${c}" stroke-width="2"/>`
      + s.points.map(p => `<circle cx="${X(p[0]).toFixed(1)}" cy="${Y(p[1]).toFixed(1)}" r="3" fill="${c}"><title>trial ${s.trial_id}: ${num(p[1])} at ${p[0]} batches</title></circle>`).join('');
  }).join('');
  const legend = series.map((s, i) => `<span><i style="background:${PALETTE[i % PALETTE.length]}"></i>trial ${s.trial_id}</span>`).join('');
  return `<svg id="curves" viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="learning curves">${grid}
    <line x1="${L}" x2="${L}" y1="${T}" y2="${H - B}" stroke="#98a2b3"/><line x1="${L}" x2="${W - R}" y1="${H - B}" y2="${H - B}" stroke="#98a2b3"/>
    <text x="${(L + W - R) / 2}" y="${H - 4}" text-anchor="middle">batches</text>${lines}</svg><div class="legend">${legend}</div>`;
}

// The searcher's unit (batches, records or epochs), from a trial's target length.
function unitOf(trials) {
  const t = trials.find(x => x.target_length && typeof x.target_length === 'object');
  return t ? Object.keys(t.target_length)[0] : '';
}

function rungsHtml(rungs, unit) {
  if (!rungs.length) return '<p class="muted">No trial has reached a rung yet.</p>';
  return rungs.map(r => `<div class="rung" data-length="${r.length}"><b>${r.length} ${esc(unit)}</b>${r.trials.map(t =>
    `<span class="chip ${t.outcome}" data-trial="${t.trial_id}" title="${t.outcome}">trial ${t.trial_id}: ${num(t.metric)} ${t.outcome === 'promoted' ? '↑' : t.outcome === 'stopped' ? '■' : '…'}</span>`).join('')}</div>`).join('')
    + '<p class="muted">↑ went on to a longer length · ■ stopped here · … training</p>';
}

// ---- models --------------------------------------------------------------------------------------
async function modelsPage() {
  const m = await api('/api/v1/models');
  const versions = m.versions || [];
  main.innerHTML = `<h1>Models</h1><table id="models"><thead><tr><th>Model</th><th>Version</th><th>Stage</th>
    <th>Experiment</th><th>Trial</th><th>Data</th><th>Registered (UTC)</th></tr></thead><tbody>${versions.map(v => `
    <tr><td><a href="#/models/${encodeURIComponent(v.name)}/${v.version}">${esc(v.name)}</a></td><td>${esc(v.version)}</td>
    <td>${state(v.stage)}</td><td>${link(v.experiment_id)}</td><td>${esc(v.trial_id)}</td>
    <td>${esc(v.data?.uri)} ${v.data?.version !== undefined ? `v${esc(v.data.version)}` : ''}</td>
    <td>${v.created_millis ? time(new Date(Number(v.created_millis)).toISOString()) : ''}</td></tr>`).join('')}</tbody></table>
    ${versions.length ? '' : '<p class="muted">No registered model yet: a pipeline registers its best trial.</p>'}`;
}

function link(experimentId) {
  return experimentId ? `<a href="#/experiments/${encodeURIComponent(experimentId)}">${esc(experimentId)}</a>` : '';
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
      ${box('Experiment', link(v.experiment_id) || '—')}<span class="arrow">→</span>
      ${box('Trial', esc(v.trial_id) || '—')}<span class="arrow">→</span>
      ${box('Checkpoint', `<span class="wrap">${esc(v.source_checkpoint_uri)}</span>`)}<span class="arrow">→</span>
      ${box('Model', `${esc(v.name)} v${esc(v.version)}<br><span class="wrap">${esc(v.checkpoint?.uri)}</span>`)}<span class="arrow">→</span>
      ${box('Predictions', runs.length ? runs.map(r => `<span class="wrap">${esc(r.predictions.uri)}</span> v${esc(r.predictions.version ?? 0)}`).join('<br>')
        : pipeline ? `see the pipeline ${pipeline}` : '<span class="muted">none yet</span>')}
    </div>
    <h2>Metrics</h2><table><tbody>${Object.entries(v.metrics || {}).map(([k, x]) => `<tr><th>${esc(k)}</th><td class="num">${num(x)}</td></tr>`).join('')}</tbody></table>
    <h2>Hyperparameters</h2><table><tbody>${Object.entries(v.hparams || {}).map(([k, x]) => `<tr><th>${esc(k)}</th><td>${esc(x)}</td></tr>`).join('')}</tbody></table>
    <h2>Stage history</h2><table><tbody>${(v.history || []).map(h => `<tr><td>${esc(h.stage)}</td><td>${esc(h.reason)}</td></tr>`).join('')}</tbody></table>`;
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
      <td class="wrap">${esc(p.data_table)}</td><td>${time(p.started)}</td><td>${time(p.closed)}</td></tr>`).join('')}</tbody></table>
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
        <tr><th>Experiment</th><td>${link(p.experiment_id) || '—'}</td></tr>
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

async function route() {
  leavePage(); leavePage = () => {};
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  try {
    if (parts[0] === 'experiments' && parts[1]) experimentPage(parts[1]);
    else if (parts[0] === 'pools' && parts[1]) await poolPage(parts[1]);
    else if (parts[0] === 'pools') await poolsPage();
    else if (parts[0] === 'pipelines' && parts[1]) await pipelinePage(parts[1]);
    else if (parts[0] === 'pipelines') await pipelinesPage();
    else if (parts[0] === 'models' && parts[2]) await modelPage(parts[1], parts[2]);
    else if (parts[0] === 'models') await modelsPage();
    else await experimentsPage();
  } catch (e) {
    if (!/needs its token/.test(e.message)) showError(e);
  }
}

window.addEventListener('hashchange', route);
route();
