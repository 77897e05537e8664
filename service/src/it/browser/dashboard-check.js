// Opens Keel's dashboard in headless Chromium while an experiment runs and reports what it showed, for
// DashboardShowsARunningExperimentLiveTest to compare with the API. Usage:
//   node dashboard-check.js API_URL EXPERIMENT_ID SCREENSHOT_DIR TOKEN CATALOG_API_URL
// API_URL requires the bearer token TOKEN, which the check types into the page's token form. It follows one page
// load through the run: the page must update by itself (Server-Sent Events) from a first view with fewer
// validations to the completed experiment, while the check hovers the curves and pauses and activates the
// experiment with the page's buttons. Then it opens a trial's page, the experiment list, and the experiment's
// page on CATALOG_API_URL, an API whose Temporal never saw the experiment. Prints one JSON line on stdout.
// Needs playwright-core (NODE_PATH) and Debian's chromium at /usr/bin/chromium.
const withChromiumPage = require('./chromium-page');

const count = page => page.evaluate(() => ({
  points: [...document.querySelectorAll('#curves path[data-trial]')].reduce((n, p) => n + Number(p.dataset.points), 0),
  trials: document.querySelectorAll('#trials tbody tr').length,
}));
const text = async (page, selector) => (await page.locator(selector).first().innerText()).replace(/\s+/g, ' ').trim();

(async () => {
  const [api, experimentId, outDir, token, catalogApi] = process.argv.slice(2);
  await withChromiumPage({ width: 1500, height: 1250 }, outDir, async (page, seen) => {
    let navigations = 0;
    page.on('framenavigated', f => { if (f === page.mainFrame()) navigations++; });
    page.on('dialog', d => d.accept());
    await page.goto(`${api}/#/experiments/${encodeURIComponent(experimentId)}`);
    // 0. The API has a token: the page asks for it, then shows the experiment (no reload).
    await page.waitForSelector('form.token input', { timeout: 60000 });
    await page.fill('form.token input', token);
    await page.click('form.token button');
    // 1. While it runs: the trials table and at least one validation on the curves.
    await page.waitForFunction(() => document.querySelectorAll('#curves path[data-trial]').length > 0
      && document.querySelector('h1 .state.ACTIVE'), null, { timeout: 180000 });
    seen.first = await count(page);
    seen.config = await text(page, '#config');
    await page.screenshot({ path: `${outDir}/dashboard-1-running.png`, fullPage: true });
    // the page's buttons pause and activate the experiment (with the token)
    await page.click('.controls button[data-action="pause"]');
    await page.waitForSelector('h1 .state.PAUSED', { timeout: 60000 });
    seen.paused = await text(page, 'h1');
    await page.screenshot({ path: `${outDir}/dashboard-1b-paused.png`, fullPage: true });
    await page.click('.controls button[data-action="activate"]');
    await page.waitForSelector('h1 .state.ACTIVE', { timeout: 60000 });
    // 2. The same page, never reloaded, once the experiment completed.
    await page.waitForSelector('h1 .state.COMPLETED', { timeout: 420000 });
    // and the event stream ended: the workflow closed, its checkpoint GC recorded
    await page.waitForFunction(() => document.getElementById('live').textContent === '', null, { timeout: 60000 });
    seen.last = await count(page);
    seen.navigations = navigations;
    seen.controlsAtEnd = await page.locator('.controls button').count();
    seen.tableTrials = await page.$$eval('#trials tbody tr', rows => rows.map(r => Number(r.dataset.trial)));
    seen.curves = await page.$$eval('#curves path[data-trial]',
      paths => paths.map(p => ({ trial: Number(p.dataset.trial), points: Number(p.dataset.points) })));
    seen.rungs = await page.$$eval('#rungs .rung', rungs => rungs.map(r => ({
      bracket: r.dataset.bracket,
      length: Number(r.dataset.length),
      trials: [...r.querySelectorAll('.chip')].map(c => ({ trial: Number(c.dataset.trial), outcome: c.title })),
    })));
    seen.checkpoints = await page.$$eval('#checkpoints tbody tr', rows => rows.map(r => ({
      uuid: r.dataset.checkpoint, state: r.querySelector('.state').textContent,
    })));
    seen.summary = await text(page, '#summary');
    seen.colours = await page.$$eval('#curves path[data-trial]', paths => paths.map(p => p.getAttribute('stroke')));
    // hovering a point of the curves shows its values
    const point = page.locator('#curves circle').last();
    seen.hoveredPoint = { label: await point.getAttribute('data-label'), x: await point.getAttribute('data-x'), y: await point.getAttribute('data-y') };
    await point.hover();
    await page.waitForSelector('.chart .tip:not([hidden])', { timeout: 10000 });
    seen.tooltip = await text(page, '.chart .tip');
    await page.screenshot({ path: `${outDir}/dashboard-2-completed.png`, fullPage: true });
    // 3. A trial's page, by its link in the trials table.
    await page.click('#trials tbody tr[data-trial="1"] a');
    await page.waitForSelector('#validations tbody tr', { timeout: 30000 });
    seen.trial = {
      title: await text(page, 'h1'),
      columns: await page.$$eval('#validations thead th', ths => ths.map(th => th.textContent)),
      validations: await page.$$eval('#validations tbody tr', rows => rows.map(r => Number(r.dataset.batches))),
      lossSeries: await page.$$eval('#loss-curves g.series', gs => gs.map(g => g.dataset.series)),
      validationSeries: await page.$$eval('#validation-curves g.series', gs => gs.map(g => g.dataset.series)),
      checkpoints: await page.$$eval('#trial-checkpoints tbody tr', rows => rows.map(r => r.dataset.checkpoint)),
      hparams: await text(page, '#hparams'),
      summary: await text(page, '#trial-summary'),
      logs: await page.locator('#logs').innerText(),
    };
    await page.locator('#loss-curves circle').first().hover();
    await page.waitForSelector('.chart .tip:not([hidden])', { timeout: 10000 });
    seen.trial.tooltip = await text(page, '.chart .tip:not([hidden])');
    await page.screenshot({ path: `${outDir}/dashboard-2b-trial.png`, fullPage: true });
    // 4. The experiment list links to it, with its state and best metric.
    await page.goto(`${api}/#/`);
    const row = page.locator(`tr[data-experiment="${experimentId}"]`);
    await row.waitFor({ state: 'visible', timeout: 30000 });
    seen.listRow = (await row.innerText()).replace(/\s+/g, ' ').trim();
    await page.screenshot({ path: `${outDir}/dashboard-3-experiments.png`, fullPage: true });
    // 5. The experiment on an API whose Temporal never saw it: from the catalog.
    await page.goto(`${catalogApi}/#/experiments/${encodeURIComponent(experimentId)}`);
    await page.waitForSelector('#summary', { timeout: 60000 });
    seen.catalog = {
      title: await text(page, 'h1'),
      summary: await text(page, '#summary'),
      rungLengths: await page.$$eval('#rungs .rung > b', bs => bs.map(b => b.textContent)),
      brackets: await page.$$eval('#rungs .bracket h3', hs => hs.map(h => h.textContent)),
      inferred: await page.locator('#rungs-inferred').count(),
      controls: await page.locator('.controls button').count(),
    };
    await page.screenshot({ path: `${outDir}/dashboard-3b-from-the-catalog.png`, fullPage: true });
  });
})();
