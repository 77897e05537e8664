// Opens Keel's dashboard in headless Chromium while an experiment runs and reports what it showed, for
// DashboardShowsARunningExperimentLiveTest to compare with the API. Usage:
//   node dashboard-check.js API_URL EXPERIMENT_ID SCREENSHOT_DIR
// It follows one page load through the run: the page must update by itself (Server-Sent Events) from a
// first view with fewer validations to the completed experiment. Prints one JSON line on stdout.
// Needs playwright-core (NODE_PATH) and Debian's chromium at /usr/bin/chromium.
const withChromiumPage = require('./chromium-page');

const count = page => page.evaluate(() => ({
  points: [...document.querySelectorAll('#curves path[data-trial]')].reduce((n, p) => n + Number(p.dataset.points), 0),
  trials: document.querySelectorAll('#trials tbody tr').length,
}));

(async () => {
  const [api, experimentId, outDir] = process.argv.slice(2);
  await withChromiumPage({ width: 1500, height: 1250 }, outDir, async (page, seen) => {
    let navigations = 0;
    page.on('framenavigated', f => { if (f === page.mainFrame()) navigations++; });
    await page.goto(`${api}/#/experiments/${encodeURIComponent(experimentId)}`);
    // 1. While it runs: the trials table and at least one validation on the curves.
    await page.waitForFunction(() => document.querySelectorAll('#curves path[data-trial]').length > 0
      && document.querySelector('h1 .state.ACTIVE'), null, { timeout: 180000 });
    seen.first = await count(page);
    await page.screenshot({ path: `${outDir}/dashboard-1-running.png`, fullPage: true });
    // 2. The same page, never reloaded, once the experiment completed.
    await page.waitForSelector('h1 .state.COMPLETED', { timeout: 300000 });
    // and the event stream ended: the workflow closed, its checkpoint GC recorded
    await page.waitForFunction(() => document.getElementById('live').textContent === '', null, { timeout: 60000 });
    seen.last = await count(page);
    seen.navigations = navigations;
    seen.tableTrials = await page.$$eval('#trials tbody tr', rows => rows.map(r => Number(r.dataset.trial)));
    seen.curves = await page.$$eval('#curves path[data-trial]',
      paths => paths.map(p => ({ trial: Number(p.dataset.trial), points: Number(p.dataset.points) })));
    seen.rungs = await page.$$eval('#rungs .rung', rungs => rungs.map(r => ({
      length: Number(r.dataset.length),
      trials: [...r.querySelectorAll('.chip')].map(c => ({ trial: Number(c.dataset.trial), outcome: c.title })),
    })));
    seen.checkpoints = await page.$$eval('#checkpoints tbody tr', rows => rows.map(r => ({
      uuid: r.dataset.checkpoint, state: r.querySelector('.state').textContent,
    })));
    await page.screenshot({ path: `${outDir}/dashboard-2-completed.png`, fullPage: true });
    // 3. The experiment list links to it, with its state and best metric.
    await page.goto(`${api}/#/`);
    const row = page.locator(`tr[data-experiment="${experimentId}"]`);
    await row.waitFor({ state: 'visible', timeout: 30000 });
    seen.listRow = (await row.innerText()).replace(/\s+/g, ' ').trim();
    await page.screenshot({ path: `${outDir}/dashboard-3-experiments.png`, fullPage: true });
  });
})();
