// MQTT.js in node against a broker's WebSocket listener(s), MQTT 3.1.1 and 5: QoS 0/1/2 both ways
// between a client on the listener and a peer (a TCP listener, or the same URL), a retained message for
// a later subscriber, the will of a client whose connection ends without DISCONNECT, and a session that
// gets on reconnect what was queued while it was offline.
//
//   node mqttjs-client.mjs --url ws://127.0.0.1:8080/mqtt [--url wss://127.0.0.1:8443/mqtt --ca ca.crt]
//                          [--peer mqtt://127.0.0.1:1883] [--versions 4,5] [--timeout 120]
import { Checks, STEP_MS, connect, deadline, expect, options, unique, within } from './lib.mjs';

const USAGE = 'node mqttjs-client.mjs --url ws(s)://host:port/path ... [--peer URL] [--ca FILE] [--versions 4,5] [--timeout S]';
const args = options({
  url: { type: 'string', multiple: true },
  peer: { type: 'string' },
  ca: { type: 'string' },
  versions: { type: 'string', default: '4,5' },
  timeout: { type: 'string', default: '120' },
}, ['url'], USAGE);
deadline(Number(args.timeout));

const checks = new Checks();
const versionName = { 4: '3.1.1', 5: '5' };

/** Runs `body` with connected clients ({ url, ...MQTT.js options } each) and ends them all after. */
async function withClients(specs, body) {
  const clients = [];
  try {
    for (const { url, ...more } of specs) clients.push(await connect(url, args.ca, more));
    return await body(...clients);
  } finally {
    clients.forEach(({ client }) => client.end(true));
  }
}

async function subscribe(client, topic, qos) {
  const granted = await within(STEP_MS, `SUBACK for ${topic}`, client.subscribeAsync(topic, { qos }));
  expect(granted[0]?.qos === qos, `SUBACK granted ${JSON.stringify(granted)} for ${topic}, not QoS ${qos}`);
}

async function publish(client, topic, text, options) {
  await within(STEP_MS, `the acknowledgement of a publish to ${topic}`, client.publishAsync(topic, text, options));
}

async function qosBothWays(url, peer, version) {
  for (const qos of [0, 1, 2]) {
    for (const [from, to] of [[url, peer], [peer, url]]) {
      await checks.check(`MQTT ${versionName[version]}: QoS ${qos} from ${from} to ${to}`, () =>
        withClients([{ url: from, protocolVersion: version }, { url: to, protocolVersion: version }],
          async (publisher, subscriber) => {
            const topic = unique('e2e/ws/qos');
            const text = unique(`qos${qos}`);
            await subscribe(subscriber.client, topic, 2);
            await publish(publisher.client, topic, text, { qos });
            const message = await subscriber.inbox.next(topic);
            expect(message.text === text && message.qos === qos,
              `received ${JSON.stringify(message)}, not "${text}" at QoS ${qos}`);
          }));
    }
  }
}

async function retained(url, peer, version) {
  await checks.check(`MQTT ${versionName[version]}: a retained message from ${peer} reaches a later subscriber on ${url}`, async () => {
    const topic = unique('e2e/ws/retained');
    await withClients([{ url: peer, protocolVersion: version }], async (publisher) => {
      await publish(publisher.client, topic, 'kept', { qos: 1, retain: true });
    });
    try {
      await withClients([{ url, protocolVersion: version }], async (subscriber) => {
        await subscribe(subscriber.client, topic, 1);
        const message = await subscriber.inbox.next(topic);
        expect(message.text === 'kept' && message.retain, `received ${JSON.stringify(message)}, not "kept" with RETAIN 1`);
      });
    } finally {
      await withClients([{ url: peer, protocolVersion: version }], (cleaner) =>
        publish(cleaner.client, topic, '', { qos: 1, retain: true }));
    }
  });
}

async function will(url, peer, version) {
  await checks.check(`MQTT ${versionName[version]}: the will of a client on ${url} whose connection just ends goes out`, async () => {
    const topic = unique('e2e/ws/will');
    await withClients([{ url: peer, protocolVersion: version }], async (watcher) => {
      await subscribe(watcher.client, topic, 1);
      const { client } = await connect(url, args.ca,
        { protocolVersion: version, will: { topic, payload: 'gone', qos: 1, retain: false } });
      client.end(true);  // destroys the connection: no DISCONNECT, so the broker publishes the will
      const message = await watcher.inbox.next(topic);
      expect(message.text === 'gone', `received ${JSON.stringify(message)}, not the will "gone"`);
    });
  });
}

/** MQTT.js options that keep the session after the connection: Clean Session 0 (3.1.1), an expiry (5). */
function persistent(url, version, clientId, clean) {
  return version === 5
    ? { url, protocolVersion: 5, clientId, clean, properties: { sessionExpiryInterval: 300 } }
    : { url, protocolVersion: 4, clientId, clean: false };
}

async function sessionResume(url, peer, version) {
  await checks.check(`MQTT ${versionName[version]}: a session on ${url} gets on reconnect what was queued while offline`, async () => {
    const topic = unique('e2e/ws/session');
    const clientId = unique('resume');
    try {
      await withClients([persistent(url, version, clientId, true)], async (first) => {
        expect(!first.connack.sessionPresent, 'the first CONNACK says Session Present');
        await subscribe(first.client, topic, 2);
        await within(STEP_MS, 'DISCONNECT', first.client.endAsync());
      });
      await withClients([{ url: peer, protocolVersion: version }], async (publisher) => {
        await publish(publisher.client, topic, 'while offline 1', { qos: 1 });
        await publish(publisher.client, topic, 'while offline 2', { qos: 2 });
      });
      await withClients([persistent(url, version, clientId, false)], async (again) => {
        expect(again.connack.sessionPresent, 'the CONNACK on reconnect does not say Session Present');
        const texts = [(await again.inbox.next(topic)).text, (await again.inbox.next(topic)).text];
        expect(texts.join() === 'while offline 1,while offline 2', `received ${JSON.stringify(texts)}`);
      });
    } finally {
      // A clean connect ends the session, so that the broker keeps nothing of the test.
      await withClients([{ url, protocolVersion: version, clientId, clean: true }], async () => {});
    }
  });
}

for (const url of args.url) {
  const peer = args.peer ?? url;
  for (const version of args.versions.split(',').map(Number)) {
    await qosBothWays(url, peer, version);
    await retained(url, peer, version);
    await will(url, peer, version);
    await sessionResume(url, peer, version);
  }
}
checks.finish();
