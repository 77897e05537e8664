// Opens Temporal's web UI in headless Chromium, finds a Keel pipeline run by its workflow id and
// checks that its status, its three activities (with their summaries) and Keel's search attributes
// are on screen. Usage: node ui-check.js UI_URL WORKFLOW_ID PIPELINE_NAME SCREENSHOT_DIR
// Needs playwright-core (NODE_PATH) and Debian's chromium at /usr/bin/chromium.
const { chromium } = require('playwright-core');

async function expectText(page, text, what) {
  try {
    await page.getByText(text, { exact: false }).first().waitFor({ state: 'visible', timeout: 20000 });
  } catch (e) {
    throw new Error(`the UI does not show ${what} ("${text}") on ${page.url()}`);
  }
}

(async () => {
  const [ui, workflowId, pipeline, outDir] = process.argv.slice(2);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1300 } });
    // 1. The workflow list, filtered by id the way a user types it in the UI's query box.
    const query = encodeURIComponent(`WorkflowId="${workflowId}"`);
    await page.goto(`${ui}/namespaces/default/workflows?query=${query}`);
    const link = page.locator(`a:has-text("${workflowId}")`).first();
    await link.waitFor({ state: 'visible', timeout: 30000 });
    await page.screenshot({ path: `${outDir}/ui-1-workflow-list.png`, fullPage: true });
    await link.click();

    // 2. The run: status, type, the stages as activities and child workflows with their summaries.
    await page.waitForURL(/\/history/, { timeout: 30000 });
    await expectText(page, 'Completed', 'the status');
    await expectText(page, workflowId, 'the workflow id');
    await expectText(page, 'Pipeline', 'the workflow type');
    await expectText(page, 'Ingest •', 'the ETL activity and its summary');
    await expectText(page, 'Experiment', 'the search stage, a child Experiment workflow');
    await expectText(page, 'RegisterModel • Register model', 'the registry activity and its summary');
    await expectText(page, 'Inference', 'the infer stage, a child Inference workflow');
    await page.screenshot({ path: `${outDir}/ui-2-workflow-history.png`, fullPage: true });

    // 3. Keel's search attributes.
    await page.getByRole('tab', { name: 'Search Attributes' }).or(page.getByText('Search Attributes', { exact: true })).first().click();
    await expectText(page, 'KeelPipeline', 'the KeelPipeline search attribute');
    await page.screenshot({ path: `${outDir}/ui-3-search-attributes.png`, fullPage: true });
    const attrs = await page.innerText('body');
    const expected = {
      KeelPipeline: `"${pipeline}"`,
      KeelStage: '"done"',
      KeelDataTable: '"file:',
      KeelDataVersion: '',
      KeelTestAccuracy: '0.',
    };
    for (const [name, value] of Object.entries(expected)) {
      if (!attrs.includes(`"${name}": ${value}`)) {
        throw new Error(`the Search Attributes tab does not show ${name}: ${value || '(a value)'}`);
      }
    }
    console.log(`ok: ${workflowId} shows Completed, Ingest, the Experiment child, RegisterModel with summaries, the Inference child and Keel's search attributes`);
  } finally {
    await browser.close();
  }
})().catch((e) => {
  console.error(`ui-check: ${e.message}`);
  process.exit(1);
});
