// Opens Keel's dashboard in headless Chromium on a completed pipeline, its registered model and its data table,
// and pages that do not exist, and reports what the pages showed, for
// DashboardLeadsFromAPipelineToItsModelsLineageTest. Usage:
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
    // 4. The data page lists the table; the table's page its versions and rows per split and class.
    await page.locator('a[href="#/data"]').first().click();
    await page.waitForSelector('#tables tbody tr', { timeout: 30000 });
    seen.tables = await page.$$eval('#tables tbody tr', rows => rows.map(r => r.innerText.replace(/\s+/g, ' ').trim()));
    await page.screenshot({ path: `${outDir}/dashboard-7-data.png`, fullPage: true });
    await page.locator('#tables tbody tr a').first().click();
    await page.waitForSelector('#versions tbody tr', { timeout: 30000 });
    seen.tableTitle = (await page.locator('h1').innerText()).trim();
    seen.versions = await page.$$eval('#versions tbody tr', rows => rows.map(r => r.innerText.replace(/\s+/g, ' ').trim()));
    seen.classes = await page.$$eval('details.version[open] table.classes tbody tr', rows => rows.map(r => ({
      name: r.dataset.class, cells: [...r.querySelectorAll('td')].slice(1).map(td => td.textContent.trim()),
    })));
    seen.classColumns = await page.$$eval('details.version[open] table.classes thead th', ths => ths.map(th => th.textContent.trim()));
    await page.screenshot({ path: `${outDir}/dashboard-8-table.png`, fullPage: true });
    // 5. A hash no page answers says so, also one that starts like a real page.
    seen.notFound = [];
    for (const hash of ['#/nosuch', `#/experiments/x/bogus/1`, '#/data/fashion_mnist/extra']) {
      await page.goto(`${api}/${hash}`);
      await page.waitForFunction(h => (document.getElementById('not-found')?.textContent || '').includes(h), hash, { timeout: 30000 });
      seen.notFound.push((await page.locator('main').innerText()).replace(/\s+/g, ' ').trim());
    }
    await page.screenshot({ path: `${outDir}/dashboard-9-not-found.png`, fullPage: true });
  });
})();
