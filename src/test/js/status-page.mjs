// The status page in headless Chromium, loaded from the broker's own HTTP server: it connects, shows
// the $SYS figures, and they move when MQTT.js clients in node connect and publish (the load); a
// screenshot is taken while the load runs. The broker must publish $SYS often (sys-interval = 1s).
//
//   node status-page.mjs --page http://127.0.0.1:8080/ --load mqtt://127.0.0.1:1883 --screenshot page.png
//                        [--expect-shards 2] [--expect-nodes 3] [--load-seconds 8] [--ca ca.crt] [--timeout 120]
// With --expect-nodes the broker is a node of a cluster of that many: its Cluster section lists every node, and
// the node's rates move with the load.
import { launch } from './chromium.mjs';
import { Checks, connect, deadline, expect, options, unique, within } from './lib.mjs';

const USAGE = 'node status-page.mjs --page http://host:port/ --load URL --screenshot FILE [--expect-shards N] [--expect-nodes N] [--load-seconds S] [--ca FILE] [--timeout S]';
const args = options({
  page: { type: 'string' },
  load: { type: 'string' },
  screenshot: { type: 'string' },
  'expect-shards': { type: 'string' },
  'expect-nodes': { type: 'string' },
  'load-seconds': { type: 'string', default: '8' },
  ca: { type: 'string' },
  timeout: { type: 'string', default: '120' },
}, ['page', 'load', 'screenshot'], USAGE);
deadline(Number(args.timeout));

const LOAD_CLIENTS = 5;
const WAIT_MS = 20_000;  // a figure must show, or move, within this (several sys-intervals of 1 s)
const checks = new Checks();

/** The number an element shows ("1,234" -> 1234), NaN while it shows none. */
function shown(page, selector) {
  return page.$eval(selector, (element) => Number(element.textContent.replace(/,/g, '')));
}

/** Waits until the element's number passes `test`. */
async function waitForNumber(page, selector, test, what) {
  const started = Date.now();
  for (let tries = 0; tries < WAIT_MS / 250 && Date.now() - started < WAIT_MS; tries++) {
    const value = await shown(page, selector);
    if (test(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${what}: ${selector} shows ${await shown(page, selector)} after ${WAIT_MS} ms`);
}

/** MQTT.js clients in node: one subscriber and publishers sending QoS 0 and 1 every 20 ms, for `seconds`. */
async function startLoad(seconds) {
  const topic = unique('e2e/status/load');
  const clients = [];
  for (let i = 0; i < LOAD_CLIENTS; i++) clients.push((await connect(args.load, args.ca, { protocolVersion: 5 })).client);
  await within(10_000, 'SUBACK of the load subscriber', clients[0].subscribeAsync(`${topic}/#`, { qos: 1 }));
  let stopped = false;
  const publishing = (async () => {
    const end = Date.now() + seconds * 1000;
    for (let round = 0; round < seconds * 50 && Date.now() < end && !stopped; round++) {
      clients.slice(1).forEach((client, i) => client.publish(`${topic}/${i}`, `message ${round}`, { qos: round % 2 }));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    finished: publishing,
    stop: async () => {
      stopped = true;
      await publishing;
      clients.forEach((client) => client.end(true));
    },
  };
}

const browser = await launch();
let load;
try {
  const { page } = browser;
  const url = new URL(args.page);
  const connected = await checks.check(`the page at ${url} connects back over MQTT over WebSockets`, async () => {
    await page.goto(url.href, { timeout: 10_000 });
    await page.waitForSelector('#connection[data-state="connected"]', { timeout: WAIT_MS });
  });
  const before = {};
  const figures = connected && await checks.check('the page shows the broker\'s figures and a rate', async () => {
    before.clients = await waitForNumber(page, '[data-topic="clients/connected"]', (n) => n >= 1, 'clients connected');
    await waitForNumber(page, '[data-rate="received"]', (n) => n >= 0, 'the rate of messages received');
    // Mosquitto publishes publish/messages/received from the first PUBLISH on: until then it shows none.
    before.received = (await shown(page, '[data-topic="publish/messages/received"]')) || 0;
  });
  if (figures) {
    load = await startLoad(Number(args['load-seconds']));
    await checks.check(`clients connected rises by the ${LOAD_CLIENTS} load clients`, () =>
      waitForNumber(page, '[data-topic="clients/connected"]', (n) => n >= before.clients + LOAD_CLIENTS, 'clients connected'));
    await checks.check('messages received rises, and so does the chart\'s rate', async () => {
      await waitForNumber(page, '[data-topic="publish/messages/received"]', (n) => n >= before.received + 50, 'messages received');
      await waitForNumber(page, '[data-rate="received"]', (n) => n >= 10, 'the rate of messages received');
      const points = await page.$eval('#chart polyline.received', (line) => line.points.numberOfItems);
      expect(points >= 2, `the chart's line has ${points} points`);
    });
    if (args['expect-shards'] !== undefined) {
      await checks.check(`the shards table has ${args['expect-shards']} rows`, async () => {
        const rows = await page.$$eval('#shards tbody tr', (all) => all.length);
        expect(rows === Number(args['expect-shards']), `it has ${rows}`);
      });
    }
    if (args['expect-nodes'] === undefined) {
      await checks.check('no Cluster section on a broker that is no node of a cluster', async () => {
        const hidden = await page.$eval('#cluster', (section) => section.hidden);
        expect(hidden, 'the Cluster section is shown');
      });
    } else {
      await checks.check(`the nodes table has ${args['expect-nodes']} rows, and a node's received/s moves with the load`, async () => {
        const hidden = await page.$eval('#cluster', (section) => section.hidden);
        expect(!hidden, 'the Cluster section is hidden');
        const started = Date.now();
        let rows = 0;
        let fastest = 0;
        while (Date.now() - started < WAIT_MS && (rows !== Number(args['expect-nodes']) || !(fastest > 0))) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          rows = await page.$$eval('#nodes tbody tr', (all) => all.length);
          const column = await page.$$eval('#nodes th[data-column]', (all) => all.findIndex((th) => th.dataset.column === 'messages/received/rate'));
          const rates = await page.$$eval('#nodes tbody tr', (all, index) => all.map((row) => Number(row.cells[index + 1].textContent.replace(/,/g, ''))), column);
          fastest = Math.max(0, ...rates.filter(Number.isFinite));
        }
        expect(rows === Number(args['expect-nodes']), `it has ${rows} rows`);
        expect(fastest > 0, `no node's received/s moved (${fastest})`);
      });
    }
    await within(Number(args['load-seconds']) * 1000 + 10_000, 'the end of the load', load.finished);
    await page.screenshot({ path: args.screenshot, fullPage: true });
    console.log(`screenshot: ${args.screenshot}`);
    await load.stop();
    await checks.check('clients connected falls back when the load clients leave', () =>
      waitForNumber(page, '[data-topic="clients/connected"]', (n) => n <= before.clients, 'clients connected'));
  }
  await checks.check('no script errors in the page, no notice shown', async () => {
    expect(browser.errors.length === 0, browser.errors.join('; '));
    const notice = await page.$eval('#notice', (element) => (element.hidden ? '' : element.textContent));
    expect(notice === '', `the page says: ${notice}`);
  });
} finally {
  await load?.stop();
  await browser.close();
}
checks.finish();
