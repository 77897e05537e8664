// Shared by the dashboard checks: runs check(page, seen) in one page of headless Debian Chromium and prints
// `seen` as one JSON line on stdout; when the check throws, it prints what it had seen and the page's text on
// stderr, keeps a screenshot of the page in outDir and sets exit code 1.
// Needs playwright-core (NODE_PATH) and Debian's chromium at /usr/bin/chromium (or $CHROMIUM).
const { chromium } = require('playwright-core');

module.exports = async function withChromiumPage(viewport, outDir, check) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  const seen = {};
  let page;
  try {
    page = await browser.newPage({ viewport });
    await check(page, seen);
    console.log(JSON.stringify(seen));
  } catch (e) {
    console.error(`check failed: ${e.message}; seen so far: ${JSON.stringify(seen)}`);
    if (page) {
      await page.screenshot({ path: `${outDir}/failure-${Date.now()}.png`, fullPage: true }).catch(() => {});
      console.error(`page ${page.url()} showed: ${(await page.locator('main').innerText().catch(() => '?')).slice(0, 2000)}`);
    }
    process.exitCode = 1;
  } finally {
    await browser.close();
  }
};
