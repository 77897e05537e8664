// Opens Keel's dashboard in headless Chromium on a completed pipeline and its registered model, and
// reports what the pages showed, for DashboardLeadsFromAPipelineToItsModelsLineageTest. Usage:
//   node dashboard-lineage-check.js API_URL PIPELINE_ID SCREENSHOT_DIR
// Prints one JSON line on stdout. Needs playwright-core (NODE_PATH) and Debian's chromium.
const withChromiumPage = require('./chromium-page');

(async () => {
  const [api, pipelineId, outDir] = process.argv.slice(2);
  await withChromiumPage({ width: 1500, height: 1000 }, outDir, async (page, seen) => {
    // 1. The pipeline list, then the pipeline by its link.
    await page.goto(`${api}/#/pipelines`);
    const row = page.locator(`tr[data-pipeline="${pipelineId}"]`);
    await row.waitFor({ state: 'visible', timeout: 90000 });
    seen.listRow = (await row.innerText()).replace(/\s+/g, ' ').trim();
    await page.screenshot({ path: `${outDir}/dashboard-4-pipelines.png`, fullPage: true });
    await row.locator('a').first().click();
    await page.waitForSelector('#stages', { timeout: 30000 });
    seen.stages = await page.$$eval('#stages .card', cards => cards.map(c => c.innerText.replace(/\s+/g, ' ').trim()));
    seen.pipelinePage = (await page.locator('main').innerText()).replace(/\s+/g, ' ');
    await page.screenshot({ path: `${outDir}/dashboard-5-pipeline.png`, fullPage: true });
    // 2. Its model, by the link on the pipeline's page: the lineage.
    await page.locator('a[href^="#/models/"]').first().click();
    await page.waitForSelector('#lineage', { timeout: 30000 });
    seen.lineage = await page.$$eval('#lineage .card', cards => cards.map(c => c.innerText.replace(/\s+/g, ' ').trim()));
    seen.modelTitle = (await page.locator('h1').innerText()).replace(/\s+/g, ' ').trim();
    await page.screenshot({ path: `${outDir}/dashboard-6-model-lineage.png`, fullPage: true });
    // 3. The lineage's experiment link opens the experiment's page.
    await page.locator('#lineage a[href^="#/experiments/"]').first().click();
    await page.waitForSelector('#trials tbody tr', { timeout: 60000 });
    seen.experimentTrials = await page.$$eval('#trials tbody tr', rows => rows.map(r => Number(r.dataset.trial)));
  });
})();
