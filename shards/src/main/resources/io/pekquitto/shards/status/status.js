// The status page's script: connects back to the listener it came from over MQTT over WebSockets
// (MQTT.js, the global `mqtt` of mqtt.min.js), subscribes to $SYS/# and shows what arrives. Each figure
// is an element with data-topic="NAME" for $SYS/broker/NAME; a topic the broker does not publish
// leaves its "–" (Mosquitto has no clients/parked and no shards/N/...).
//
// Rates: the broker publishes the topics whose value changed, all together, once per sys-interval. So
// the page waits until a burst has settled, then takes (counter now - counter at the last burst) /
// (seconds between the bursts) as one point of the chart. Retained values (the burst right after
// subscribing) are of unknown age: they only set the baseline.
'use strict';

(function () {
  const SYS = '$SYS/broker/';
  const WINDOW_MS = 5 * 60 * 1000;   // the chart's span
  const MAX_POINTS = 1200;           // a bound on the chart's points, whatever the sys-interval
  const SETTLE_MS = 400;             // a burst of $SYS messages is taken as complete after this
  const QUIET_MS = 15 * 1000;        // no $SYS by then: say what may be the reason
  const RETRY_MS = 5000;
  const WIDTH = 900;                 // the chart's viewBox
  const HEIGHT = 220;

  const figures = new Map();         // NAME of $SYS/broker/NAME -> its last value (text)
  const points = [];                 // { time, received, sent }: rates per second, oldest first
  const numbers = new Intl.NumberFormat('en');
  let baseline = null;               // { time, received, sent } at the last burst
  const nodeBaselines = new Map();   // cluster/node/N/messages/{received,sent} -> { time, value } at the last burst
  let burst = null;                  // { retained } while a burst settles
  let client = null;
  let lastReason = '';
  let sysSeen = false;
  let quietTimer = null;

  const byId = (id) => document.getElementById(id);

  function brokerUrl() {
    const path = document.querySelector('meta[name="mqtt-path"]').content;
    const scheme = location.protocol === 'https:' ? 'wss://' : 'ws://';
    return scheme + location.host + (path.startsWith('/') ? path : '/mqtt');  // '{{MQTT_PATH}}': not replaced
  }

  function setState(state, text) {
    const element = byId('connection');
    element.dataset.state = state;
    element.textContent = text;
  }

  function notice(text) {
    const element = byId('notice');
    element.textContent = text;
    element.hidden = !text;
  }

  function connect(credentials) {
    if (typeof mqtt === 'undefined') {
      setState('disconnected', 'disconnected: mqtt.min.js did not load');
      return;
    }
    if (client) client.end(true);
    const url = brokerUrl();
    const clientId = 'status-' + Math.random().toString(36).slice(2, 10);
    setState('connecting', `connecting to ${url}`);
    const self = mqtt.connect(url, {
      protocolVersion: 5, clean: true, clientId, reconnectPeriod: RETRY_MS, connectTimeout: 10000, ...credentials,
    });
    client = self;
    // A client replaced by a sign-in still reports its close: only the current one may speak.
    const on = (event, handler) => self.on(event, (...args) => { if (client === self) handler(...args); });
    on('connect', () => onConnect(url, clientId));
    on('message', onMessage);
    on('error', (error) => { lastReason = error.message; });
    on('disconnect', (packet) => { lastReason = disconnectReason(packet); });
    on('reconnect', () => setState('connecting', `connecting to ${url}`));
    on('close', () => {
      clearTimeout(quietTimer);
      baseline = null;
      setState('disconnected', `disconnected: ${lastReason || 'the connection closed'}; retrying every ${RETRY_MS / 1000} s`);
    });
  }

  function disconnectReason(packet) {
    const code = packet.reasonCode ?? 0;
    const text = packet.properties?.reasonString;
    return `the broker sent DISCONNECT 0x${code.toString(16).padStart(2, '0')}` + (text ? ` (${text})` : '');
  }

  function onConnect(url, clientId) {
    lastReason = '';
    sysSeen = false;
    setState('connected', `connected to ${url} as ${clientId}`);
    client.subscribe('$SYS/#', { qos: 0 }, (error, granted) => {
      const code = granted?.[0]?.qos;
      if (error || code === undefined || code >= 0x80) {
        notice(`The broker refused this page's subscription to $SYS/# (${error?.message ?? 'SUBACK 0x' + code?.toString(16)}): `
          + 'an ACL keeps $SYS from this client. Sign in as a user who may read $SYS/#.');
      }
    });
    clearTimeout(quietTimer);
    quietTimer = setTimeout(() => {
      if (sysSeen) return;
      notice(`No $SYS messages ${QUIET_MS / 1000} s after connecting. The broker publishes them every `
        + 'sys-interval (pekquitto: 10 s by default, none with 0s), and an ACL may deny this client '
        + 'read access to $SYS/#: sign in as a user who may read it.');
    }, QUIET_MS);
  }

  function onMessage(topic, payload, packet) {
    if (!topic.startsWith(SYS)) return;
    if (!sysSeen) notice('');
    sysSeen = true;
    const name = topic.slice(SYS.length);
    const value = payload.toString();
    figures.set(name, value);
    const shard = /^shards\/(\d+)\/(.+)$/.exec(name);
    if (shard) showShardFigure(Number(shard[1]), shard[2], value);
    const node = /^cluster\/node\/([^/]+)\/(.+)$/.exec(name);
    if (node) showNodeFigure(node[1], node[2], value);
    document.querySelectorAll(`[data-topic="${CSS.escape(name)}"]`).forEach((element) => {
      element.textContent = format(value, element.dataset.format);
      if (element.dataset.format === 'state') element.dataset.state = value;  // "failing" shows in red
    });
    if (name.startsWith('memory/') || name.startsWith('heap/')) showMemory();
    if (name.startsWith('cluster/')) byId('cluster').hidden = false;  // a node of a cluster (docs/cluster.md)
    byId('updated').textContent = new Date().toLocaleTimeString('en-GB');
    noteBurst(packet.retain);
  }

  // The memory budget (README, "Memory budgets"): what is used of it, as a bar that turns amber past
  // three quarters and red past nine tenths, where the broker starts turning clients away; and the heap.
  function showMemory() {
    const used = Number(figures.get('memory/used'));
    const budget = Number(figures.get('memory/budget'));
    const meter = byId('memory-meter');
    if (Number.isFinite(used) && budget > 0) {
      byId('memory-use').textContent = `${bytes(used)} of ${bytes(budget)} (${Math.round(100 * used / budget)} %)`;
      meter.value = Math.min(1, used / budget);
      meter.hidden = false;
    } else if (Number.isFinite(used)) {
      byId('memory-use').textContent = `${bytes(used)} (no budget)`;
    }
    const heap = Number(figures.get('heap/current'));
    const heapMaximum = Number(figures.get('heap/maximum'));
    if (Number.isFinite(heap) && heapMaximum > 0) byId('heap-use').textContent = `${bytes(heap)} of ${bytes(heapMaximum)}`;
  }

  function bytes(count) {
    if (count >= 1024 * 1024) return `${(count / (1024 * 1024)).toFixed(1)} MiB`;
    if (count >= 1024) return `${(count / 1024).toFixed(1)} KiB`;
    return `${count} B`;
  }

  function format(value, kind) {
    if (kind === 'text' || kind === 'state') return value;
    if (kind === 'bytes') return bytes(Number(value));
    if (kind === 'uptime') return duration(parseInt(value, 10));
    if (kind === 'bytes' && Number.isFinite(Number(value))) return bytes(Number(value));
    const number = Number(value);
    return Number.isFinite(number) ? numbers.format(number) : value;
  }

  /** A size in KiB, MiB or GiB; a negative one is not known (no store on disk). */
  function bytes(count) {
    if (!Number.isFinite(count) || count < 0) return '–';
    const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
    let unit = 0;
    let amount = count;
    while (amount >= 1024 && unit < units.length - 1) {
      amount /= 1024;
      unit++;
    }
    return `${unit === 0 ? amount : amount.toFixed(1)} ${units[unit]}`;
  }

  function duration(seconds) {
    if (!Number.isFinite(seconds)) return '–';
    const parts = [[Math.floor(seconds / 86400), 'd'], [Math.floor((seconds % 86400) / 3600), 'h'],
      [Math.floor((seconds % 3600) / 60), 'min'], [seconds % 60, 's']];
    return parts.filter(([amount]) => amount > 0).map(([amount, unit]) => `${amount} ${unit}`).join(' ') || '0 s';
  }

  // A shard's row in the table of shards; a node's (by its address) in the Cluster section's (docs/cluster.md).
  function showShardFigure(shard, name, value) {
    if (showRowFigure(byId('shards'), String(shard), (other) => Number(other) > shard, name, value)) {
      byId('no-shards').hidden = true;
    }
  }

  function showNodeFigure(node, name, value) {
    showRowFigure(byId('nodes'), node, (other) => other > node, name, value);
  }

  /** Shows `value` in the row `key` (made, in order, if new: `after` says which keys come after it); true if shown. */
  function showRowFigure(table, key, after, name, value) {
    const headers = [...table.querySelectorAll('th[data-column]')];
    const columns = headers.map((th) => th.dataset.column);
    const column = columns.indexOf(name);
    if (column < 0) return false;
    let row = [...table.tBodies[0].rows].find((other) => other.dataset.key === key);
    if (!row) {
      row = document.createElement('tr');
      row.dataset.key = key;
      const header = document.createElement('th');
      header.scope = 'row';
      header.textContent = key;
      row.append(header, ...columns.map(() => Object.assign(document.createElement('td'), { textContent: '–' })));
      const later = [...table.tBodies[0].rows].find((other) => after(other.dataset.key));
      table.tBodies[0].insertBefore(row, later ?? null);
      table.hidden = false;
    }
    row.cells[column + 1].textContent = format(value, headers[column].dataset.format);
    return true;
  }

  function noteBurst(retained) {
    if (burst) {
      burst.retained ||= retained;
      return;
    }
    burst = { retained };
    setTimeout(() => {
      const settled = burst;
      burst = null;
      sample(settled.retained);
    }, SETTLE_MS);
  }

  /** A counter for the chart: PUBLISH packets where the broker counts them, else MQTT packets of all kinds. */
  function counter(direction) {
    const value = figures.get(`publish/messages/${direction}`) ?? figures.get(`messages/${direction}`);
    return value === undefined ? undefined : Number(value);
  }

  function sample(retained) {
    const now = performance.now();
    const counts = { time: now, received: counter('received'), sent: counter('sent') };
    if (!retained && baseline && counts.received !== undefined && now > baseline.time) {
      const seconds = (now - baseline.time) / 1000;
      const rate = (direction) => Math.max(0, (counts[direction] - baseline[direction]) / seconds) || 0;
      points.push({ time: now, received: rate('received'), sent: rate('sent') });
      while (points.length > MAX_POINTS || (points.length > 0 && points[0].time < now - WINDOW_MS)) points.shift();
      const latest = points[points.length - 1];
      document.querySelector('[data-rate="received"]').textContent = rounded(latest.received);
      document.querySelector('[data-rate="sent"]').textContent = rounded(latest.sent);
      byId('chart-source').textContent = figures.has('publish/messages/received') ? 'PUBLISH packets' : 'MQTT packets of every kind';
      drawChart(now);
    }
    sampleNodes(now, retained);
    baseline = counts;
  }

  /** Each node's PUBLISH rates, from its counters at this burst and the last (a counter unchanged is not sent again). */
  function sampleNodes(now, retained) {
    for (const [name, value] of figures) {
      const counter = /^cluster\/node\/([^/]+)\/messages\/(received|sent)$/.exec(name);
      if (!counter) continue;
      const last = nodeBaselines.get(name);
      nodeBaselines.set(name, { time: now, value: Number(value) });
      if (retained || !last || now <= last.time) continue;
      const rate = Math.max(0, (Number(value) - last.value) / ((now - last.time) / 1000)) || 0;
      showNodeFigure(counter[1], `messages/${counter[2]}/rate`, rate < 10 ? Math.round(rate * 10) / 10 : Math.round(rate));
    }
  }

  function rounded(rate) {
    return numbers.format(rate < 10 ? Math.round(rate * 10) / 10 : Math.round(rate));
  }

  /** 1, 2 or 5 times a power of ten, at least `value`: the chart's top. */
  function niceCeiling(value) {
    const power = 10 ** Math.floor(Math.log10(value));
    return [1, 2, 5, 10].map((step) => step * power).find((top) => top >= value);
  }

  function svg(name, attributes, text) {
    const element = document.createElementNS('http://www.w3.org/2000/svg', name);
    Object.entries(attributes).forEach(([key, value]) => element.setAttribute(key, value));
    if (text !== undefined) element.textContent = text;
    return element;
  }

  function drawChart(now) {
    const top = niceCeiling(Math.max(1, ...points.map((point) => Math.max(point.received, point.sent))));
    const x = (time) => (WIDTH * (time - (now - WINDOW_MS)) / WINDOW_MS).toFixed(1);
    const y = (rate) => (HEIGHT - 24 - (HEIGHT - 44) * rate / top).toFixed(1);  // room for labels
    const line = (direction) => svg('polyline', {
      class: direction, points: points.map((point) => `${x(point.time)},${y(point[direction])}`).join(' '),
    });
    byId('chart').replaceChildren(
      svg('line', { class: 'grid', x1: 0, x2: WIDTH, y1: y(top), y2: y(top) }),
      svg('line', { class: 'grid', x1: 0, x2: WIDTH, y1: y(top / 2), y2: y(top / 2) }),
      svg('line', { class: 'axis', x1: 0, x2: WIDTH, y1: y(0), y2: y(0) }),
      svg('text', { x: 4, y: Number(y(top)) - 4 }, `${numbers.format(top)}/s`),
      svg('text', { x: 4, y: Number(y(top / 2)) - 4 }, `${numbers.format(top / 2)}/s`),
      svg('text', { x: 4, y: HEIGHT - 6 }, `${WINDOW_MS / 60000} min ago`),
      svg('text', { x: WIDTH - 4, y: HEIGHT - 6, 'text-anchor': 'end' }, 'now'),
      line('received'),
      line('sent'));
  }

  byId('credentials').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = new FormData(event.target);
    const username = form.get('username');
    const password = form.get('password');
    connect({ ...(username ? { username } : {}), ...(password ? { password } : {}) });
  });
  connect({});
}());
