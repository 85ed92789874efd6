// MQTT.js in headless Chromium, over the broker's WebSocket listener, exchanges messages both ways with
// MQTT.js in node over a TCP listener: QoS 0, 1 and 2, MQTT 3.1.1 and 5. The test page is served from
// here (node's http module, 127.0.0.1) and loads the mqtt.min.js the status page ships.
//
//   node browser-exchange.mjs --ws ws://127.0.0.1:8080/mqtt --tcp mqtt://127.0.0.1:1883 [--bundle mqtt.min.js]
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { launch } from './chromium.mjs';
import { Checks, STEP_MS, connect, deadline, expect, options, unique, within } from './lib.mjs';

const VENDORED = fileURLToPath(new URL('../../../shards/src/main/resources/io/pekquitto/shards/status/mqtt.min.js', import.meta.url));
const USAGE = 'node browser-exchange.mjs --ws ws://host:port/path --tcp mqtt://host:port [--bundle FILE] [--timeout S]';
const args = options({
  ws: { type: 'string' },
  tcp: { type: 'string' },
  bundle: { type: 'string', default: VENDORED },
  timeout: { type: 'string', default: '90' },
}, ['ws', 'tcp'], USAGE);
deadline(Number(args.timeout));

// The page's own part: connect, subscribe, publish, and keep what arrives in window.received.
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>exchange</title><link rel="icon" href="data:,">
<script src="/mqtt.min.js"></script>
<script>
  window.received = [];
  window.exchange = {
    connect: (url, protocolVersion, topic) => new Promise((resolve, reject) => {
      const client = mqtt.connect(url, { protocolVersion, clientId: 'browser-' + Math.random().toString(36).slice(2, 10), reconnectPeriod: 0 });
      client.on('message', (topic, payload, packet) => received.push({ topic, text: payload.toString(), qos: packet.qos }));
      client.on('error', (error) => reject(error.message));
      client.on('close', () => reject('the connection closed'));
      client.on('connect', () => client.subscribe(topic, { qos: 2 }, (error, granted) =>
        error ? reject(error.message) : resolve(granted[0].qos)));
      window.client = client;
    }),
    publish: (topic, text, qos) => window.client.publishAsync(topic, text, { qos }).then(() => 'acknowledged'),
    end: () => window.client.endAsync(),
  };
</script></head><body><p>MQTT.js in the browser</p></body></html>`;

function servePage() {
  const bundle = readFileSync(args.bundle);
  const server = createServer((request, response) => {
    const [type, body] = request.url === '/mqtt.min.js' ? ['text/javascript', bundle]
      : request.url === '/' ? ['text/html; charset=utf-8', PAGE] : [];
    response.writeHead(body ? 200 : 404, { 'content-type': type ?? 'text/plain' });
    response.end(body ?? 'not found');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const checks = new Checks();
const server = await servePage();
const browser = await launch();
try {
  const { page } = browser;
  await page.goto(`http://127.0.0.1:${server.address().port}/`, { timeout: STEP_MS });
  for (const version of [4, 5]) {
    const name = version === 5 ? 'MQTT 5' : 'MQTT 3.1.1';
    const toBrowser = unique('e2e/browser/in');
    const toTcp = unique('e2e/browser/out');
    const tcp = await connect(args.tcp, undefined, { protocolVersion: version });
    try {
      const connected = await checks.check(`${name}: the browser connects to ${args.ws} and subscribes`, async () => {
        const granted = await within(STEP_MS, 'the browser\'s CONNACK and SUBACK',
          page.evaluate(([url, v, topic]) => window.exchange.connect(url, v, topic), [args.ws, version, toBrowser]));
        expect(granted === 2, `SUBACK granted ${granted}, not QoS 2`);
        await within(STEP_MS, 'SUBACK over TCP', tcp.client.subscribeAsync(toTcp, { qos: 2 }));
      });
      for (const qos of connected ? [0, 1, 2] : []) {
        await checks.check(`${name}: QoS ${qos} from ${args.tcp} to the browser`, async () => {
          const text = unique(`to-browser-qos${qos}`);
          await within(STEP_MS, 'publish over TCP', tcp.client.publishAsync(toBrowser, text, { qos }));
          const arrived = await page.waitForFunction((wanted) => window.received.find((m) => m.text === wanted),
            text, { timeout: STEP_MS });
          const message = await arrived.jsonValue();
          expect(message.topic === toBrowser && message.qos === qos, `the browser received ${JSON.stringify(message)}`);
        });
        await checks.check(`${name}: QoS ${qos} from the browser to ${args.tcp}`, async () => {
          const text = unique(`from-browser-qos${qos}`);
          await within(STEP_MS, 'publish from the browser',
            page.evaluate(([topic, t, q]) => window.exchange.publish(topic, t, q), [toTcp, text, qos]));
          const message = await tcp.inbox.next(toTcp);
          expect(message.text === text && message.qos === qos, `received over TCP ${JSON.stringify(message)}`);
        });
      }
    } finally {
      tcp.client.end(true);
      await within(STEP_MS, 'the browser\'s DISCONNECT', page.evaluate(() => window.client?.endAsync())).catch(() => {});
    }
  }
  await checks.check('no script errors in the page', () => {
    expect(browser.errors.length === 0, browser.errors.join('; '));
  });
} finally {
  await browser.close();
  server.close();
}
checks.finish();
