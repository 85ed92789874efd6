// What the test scripts share: arguments, a deadline for the whole script, checks that print one line
// each and a closing count, and MQTT.js clients whose received messages wait in an inbox.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import mqtt from 'mqtt';

export const STEP_MS = 10_000;  // the longest any one step (a connect, a message) may take

/** Parses --name value options; exits 2 with the usage if one in `required` is missing. */
export function options(spec, required, usage) {
  const { values } = parseArgs({ options: spec, strict: true });
  const missing = required.filter((name) => values[name] === undefined);
  if (missing.length > 0) {
    console.error(`missing --${missing.join(', --')}\nusage: ${usage}`);
    process.exit(2);
  }
  return values;
}

/** Ends the script with status 1 after `seconds`, whatever it is waiting for. */
export function deadline(seconds) {
  const timer = setTimeout(() => {
    console.log(`FAIL - the script did not finish within ${seconds} s`);
    process.exit(1);
  }, seconds * 1000);
  timer.unref();
}

/** A unique name for client ids and topics, so that runs and cases never meet. */
export function unique(prefix) {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** Rejects after `ms` with "`what` timed out" unless `promise` settles first. */
export function within(ms, what, promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Checks run one after another; each prints "ok - name" or "FAIL - name: why". */
export class Checks {
  passed = 0;
  failed = 0;

  /** Runs `body` as the check `name`; resolves to whether it passed. */
  async check(name, body) {
    try {
      await body();
      this.passed++;
      console.log(`ok - ${name}`);
      return true;
    } catch (error) {
      this.failed++;
      console.log(`FAIL - ${name}: ${error?.message ?? error}`);
      return false;
    }
  }

  /** Prints "N passed, N failed" and exits: status 1 if any failed or none ran. */
  finish() {
    console.log(`${this.passed} passed, ${this.failed} failed`);
    process.exit(this.failed === 0 && this.passed > 0 ? 0 : 1);
  }
}

/** Throws `message` unless `condition` holds. */
export function expect(condition, message) {
  if (!condition) throw new Error(message);
}

/** MQTT.js options for `url`: no reconnects, short timeouts, the CA file for wss:// and mqtts://. */
export function clientOptions(url, ca, more = {}) {
  const tls = url.startsWith('wss:') || url.startsWith('mqtts:');
  return {
    reconnectPeriod: 0,
    connectTimeout: STEP_MS,
    ...(tls && ca ? { ca: readFileSync(ca) } : {}),
    ...more,
  };
}

/**
 * Connects an MQTT.js client and resolves to { client, connack, inbox } once CONNACK is in; the inbox
 * collects messages from the first one, so those a resumed session gets at once are not missed.
 */
export function connect(url, ca, more) {
  const client = mqtt.connect(url, clientOptions(url, ca, more));
  const inbox = new Inbox(client);
  const connected = new Promise((resolve, reject) => {
    client.once('connect', (connack) => resolve({ client, connack, inbox }));
    client.once('error', reject);
    client.once('close', () => reject(new Error(`the connection to ${url} closed before CONNACK`)));
  });
  return within(STEP_MS, `CONNACK from ${url}`, connected).catch((error) => {
    client.end(true);
    throw error;
  });
}

/** The messages a client received, in order, and a way to wait for the next one that matches. */
export class Inbox {
  messages = [];
  waiters = [];

  constructor(client) {
    client.on('message', (topic, payload, packet) => {
      this.messages.push({ topic, text: payload.toString(), qos: packet.qos, retain: packet.retain });
      this.waiters.forEach((wake) => wake());
    });
  }

  /** The first message on `topic` not yet taken, within STEP_MS; taking it removes it. */
  async next(topic) {
    const take = () => {
      const index = this.messages.findIndex((message) => message.topic === topic);
      return index < 0 ? undefined : this.messages.splice(index, 1)[0];
    };
    const arrived = new Promise((resolve) => {
      const wake = () => {
        const message = take();
        if (message === undefined) return;
        this.waiters.splice(this.waiters.indexOf(wake), 1);
        resolve(message);
      };
      this.waiters.push(wake);
      wake();
    });
    return within(STEP_MS, `a message on ${topic}`, arrived);
  }
}
