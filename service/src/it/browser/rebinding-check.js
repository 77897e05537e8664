// DNS rebinding in headless Chromium, for ABrowserPageOnARebindingDomainCannotUseALoopbackApiTest: the
// browser resolves evil.example to 127.0.0.1 (--host-resolver-rules), as a rebinding attacker's DNS would,
// and opens the API's page from 127.0.0.1, localhost and evil.example. On each page it records the status of
// every response and of a fetch() GET and POST the page itself makes (same origin, as the attacker's script
// would). Usage:
//   node rebinding-check.js PORT
// Prints one JSON line on stdout. Needs playwright-core (NODE_PATH) and Debian's chromium ($CHROMIUM).
const { chromium } = require('playwright-core');

(async () => {
  const port = process.argv[2];
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--host-resolver-rules=MAP evil.example 127.0.0.1'],
  });
  const seen = {};
  try {
    for (const host of ['127.0.0.1', 'localhost', 'evil.example']) {
      const page = await browser.newPage();
      const responses = [];
      page.on('response', r => responses.push(`${r.status()} ${new URL(r.url()).pathname}`));
      const navigation = await page.goto(`http://${host}:${port}/`);
      const call = (method, path) => page.evaluate(async ([m, p]) => {
        const r = await fetch(p, { method: m });
        return { status: r.status, body: await r.text() };
      }, [method, path]);
      seen[host] = {
        page: navigation.status(),
        read: await call('GET', '/api/v1/models'),
        write: await call('POST', '/api/v1/experiments/no-such-experiment/pause'),
        responses,
      };
      await page.close();
    }
    console.log(JSON.stringify(seen));
  } catch (e) {
    console.error(`check failed: ${e.message}; seen so far: ${JSON.stringify(seen)}`);
    process.exitCode = 1;
  } finally {
    await browser.close();
  }
})();
