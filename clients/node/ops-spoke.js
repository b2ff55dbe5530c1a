'use strict';
// A spoke of an operations-for-Java WebSocket hub, written from docs/protocol.md (the call
// protocol) and docs/websocket.md (the frames between a hub and its spokes) alone. It is the
// reference for clients in other languages: about 300 lines, one dependency (`ws`).
//
//   const { Spoke } = require('./ops-spoke');
//   const spoke = await Spoke.connect('ws://127.0.0.1:8080/ws', { token: process.env.OPS_WS_TOKEN });
//   await spoke.serve('node.upper', async (input, { identity }) => input.text.toUpperCase());
//   await spoke.announce(); // catalogs (RemoteCatalog, ops --ws URL list) now list node.upper
//   const envelope = await spoke.call('demo.echo', { message: 'hi' });
//   const stream = spoke.stream('demo.ticks', {}, { demand: 2 });
//   for await (const item of stream) { ...; if (done) stream.cancel(); }
//   await spoke.close();

const WebSocket = require('ws');
const crypto = require('crypto');

const SUBPROTOCOL = 'ops.v1';
const SERVER_GROUP = 'ops.servers';
const ALIVE_MS = 10000;

class CallError extends Error {
  constructor(code, message, retryable, details) {
    super(message);
    this.code = code;
    this.retryable = !!retryable;
    this.details = details;
  }
}

function newId() {
  return crypto.randomBytes(16).toString('hex'); // 128 random bits, 32 lower-case hex digits
}

// A frame: a header line, "\n", then the payload's bytes unchanged.
function frame(header, payload) {
  const head = Buffer.from(header + '\n', 'utf8');
  return payload ? Buffer.concat([head, payload]) : head;
}

function parse(data) {
  const buf = Buffer.isBuffer(data) ? data : Buffer.from(data);
  const nl = buf.indexOf(0x0a);
  if (nl < 0) return null;
  return { header: buf.subarray(0, nl).toString('utf8'), payload: buf.subarray(nl + 1) };
}

// A spec in the JSON form catalogs read (definitions.md): every field, schemas included.
function specJson(operationId, spec) {
  const dot = operationId.indexOf('.');
  return {
    id: operationId,
    namespace: operationId.substring(0, dot),
    name: operationId.substring(dot + 1),
    version: spec.version || '1.0.0',
    type: spec.type || 'QUERY',
    description: spec.description || '',
    inputSchema: spec.inputSchema || {},
    outputSchema: spec.outputSchema || {},
    accessControl: { requiredScopes: spec.requiredScopes || [] },
    idempotent: !!spec.idempotent,
  };
}

// Names the set of specs; readers only compare digests (protocol.md, section 17).
function digest(specs) {
  return crypto.createHash('sha256').update(JSON.stringify(specs)).digest('hex');
}

function encode(event) {
  return Buffer.from(JSON.stringify(event), 'utf8');
}

class Spoke {
  constructor(socket, ackTimeoutMs, pingIntervalMs, idleTimeoutMs) {
    this.socket = socket;
    // Every publish, subscribe and sync waits at most this long for the hub's answer.
    this.ackTimeoutMs = ackTimeoutMs || 10000;
    this.nextId = 1;
    this.acks = new Map(); // publish or sync id -> {resolve, reject}
    this.subAcks = new Map(); // subscription id -> {resolve, reject}
    this.handlers = new Map(); // subscription id -> handler(topic, payload, identity)
    this.calls = new Map(); // request id -> {onEvent}
    this.inbox = 'ops.inbox.' + newId();
    this.inboxReady = null;
    this.closed = false;
    this.identity = null;
    this.maxMessageBytes = 1024 * 1024;
    this.alive = setInterval(() => this.sendAlive(), ALIVE_MS);
    this.alive.unref();
    // Liveness by what is read (websocket.md, Limits): a network that goes silent leaves the
    // socket open and writes succeeding, so ping the hub and give up on a connection from which
    // nothing (no frame, no pong) came for idleTimeoutMs, at least two ping intervals.
    const pingMs = pingIntervalMs || 10000;
    const silenceMs = Math.max(idleTimeoutMs || 30000, 2 * pingMs);
    this.lastHeard = Date.now();
    const heard = () => { this.lastHeard = Date.now(); };
    socket.on('message', heard);
    socket.on('pong', heard);
    this.pinger = setInterval(() => {
      if (this.closed || socket.readyState !== WebSocket.OPEN) return;
      if (Date.now() - this.lastHeard > silenceMs) {
        this.silent = 'nothing heard from the hub for ' + silenceMs + ' ms';
        socket.terminate(); // 'close' follows: everything pending fails with UNAVAILABLE
        return;
      }
      socket.ping();
    }, pingMs);
    this.pinger.unref();
  }

  /** Connects and waits for the hub's greeting. */
  static connect(url, options = {}) {
    const headers = Object.assign({}, options.headers || {});
    if (options.token) headers.Authorization = 'Bearer ' + options.token;
    return new Promise((resolve, reject) => {
      const connectMs = options.connectTimeoutMs || 5000;
      const socket = new WebSocket(url, [SUBPROTOCOL], { headers, handshakeTimeout: connectMs });
      const spoke = new Spoke(socket, options.ackTimeoutMs, options.pingIntervalMs, options.idleTimeoutMs);
      const timer = setTimeout(() => {
        socket.terminate(); // given up: nothing stays open behind the rejection
        reject(new CallError('UNAVAILABLE', 'the hub did not greet within ' + connectMs + ' ms', true));
      }, connectMs);
      socket.on('unexpected-response', (req, res) => {
        clearTimeout(timer);
        const code = res.statusCode === 401 || res.statusCode === 403 ? 'ACCESS_DENIED' : 'UNAVAILABLE';
        reject(new CallError(code, 'the hub refused the connection (' + res.statusCode + ')', false));
        socket.terminate();
      });
      socket.on('error', (err) => {
        clearTimeout(timer);
        socket.terminate();
        reject(new CallError('UNAVAILABLE', 'cannot connect to the hub: ' + err.message, true));
      });
      socket.on('message', (data) => {
        const f = parse(data);
        if (f && f.header.startsWith('HELLO ')) {
          const [, , max, ...identity] = f.header.split(' ');
          spoke.maxMessageBytes = Number(max);
          spoke.identity = JSON.parse(identity.join(' '));
          clearTimeout(timer);
          resolve(spoke);
          return;
        }
        spoke.onFrame(f);
      });
      socket.on('close', () => spoke.onClose());
    });
  }

  onFrame(f) {
    if (!f) return;
    const h = f.header;
    if (h.startsWith('MSG ')) {
      // MSG <sid> <topic> <identity JSON or ->
      const first = h.indexOf(' ', 4);
      const second = h.indexOf(' ', first + 1);
      const sid = Number(h.substring(4, first));
      const topic = h.substring(first + 1, second);
      const who = h.substring(second + 1);
      const handler = this.handlers.get(sid);
      if (handler) handler(topic, f.payload, who === '-' ? null : JSON.parse(who));
    } else if (h.startsWith('ACK ') || h.startsWith('SYNCED ')) {
      const [, id, n] = h.split(' ');
      const ack = this.acks.get(Number(id));
      if (ack) {
        this.acks.delete(Number(id));
        ack.resolve(Number(n || 0));
      }
    } else if (h.startsWith('NAK ')) {
      const [, id, code, retryable, ...message] = h.split(' ');
      const ack = this.acks.get(Number(id));
      if (ack) {
        this.acks.delete(Number(id));
        ack.reject(new CallError(code, message.join(' '), retryable === '1'));
      }
    } else if (h.startsWith('SUBOK ') || h.startsWith('SUBERR ')) {
      const [kind, id, code, ...message] = h.split(' ');
      const ack = this.subAcks.get(Number(id));
      if (!ack) return;
      this.subAcks.delete(Number(id));
      if (kind === 'SUBOK') ack.resolve(Number(id));
      else {
        this.handlers.delete(Number(id));
        ack.reject(new CallError(code, message.join(' '), false));
      }
    }
  }

  onClose() {
    this.closed = true;
    clearInterval(this.alive);
    clearInterval(this.pinger);
    const gone = new CallError('UNAVAILABLE', 'the connection to the hub closed' + (this.silent ? ': ' + this.silent : ''), true);
    for (const ack of this.acks.values()) ack.reject(gone);
    for (const ack of this.subAcks.values()) ack.reject(gone);
    this.acks.clear();
    this.subAcks.clear();
    // Pending calls fail at once, not at their deadlines (protocol.md, section 1, promise 7).
    for (const call of [...this.calls.values()]) {
      call.onEvent({ type: 'call.error', error: { code: 'UNAVAILABLE', message: gone.message, retryable: true } });
    }
  }

  send(buf) {
    if (this.closed) throw new CallError('UNAVAILABLE', 'not connected to the hub', true);
    this.socket.send(buf, { binary: true });
  }

  /**
   * Waits for the hub's answer to frame id in map, at most ackTimeoutMs: a hub that stops
   * answering on a connection that stays open fails the wait with UNAVAILABLE.
   */
  awaitAck(map, id, resolve, reject, what) {
    const timer = setTimeout(() => {
      if (map.delete(id)) {
        reject(new CallError('UNAVAILABLE', 'the hub did not answer the ' + what + ' within ' + this.ackTimeoutMs + ' ms', true));
      }
    }, this.ackTimeoutMs);
    timer.unref();
    map.set(id, {
      resolve: (v) => { clearTimeout(timer); resolve(v); },
      reject: (e) => { clearTimeout(timer); reject(e); },
    });
  }

  /** Publishes; resolves with the number of subscriptions reached. */
  publish(topic, payload) {
    if (payload.length > this.maxMessageBytes) {
      return Promise.reject(new CallError('RESOURCE_EXHAUSTED', 'message larger than ' + this.maxMessageBytes, false));
    }
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.awaitAck(this.acks, id, resolve, reject, 'publish to ' + topic);
      try {
        this.send(frame('PUB ' + id + ' ' + topic, payload));
      } catch (e) {
        this.acks.delete(id);
        reject(e);
      }
    });
  }

  /** Subscribes; resolves once the hub accepted it. */
  subscribe(topic, group, handler) {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.handlers.set(id, handler);
      this.awaitAck(this.subAcks, id, resolve, reject, 'subscription to ' + topic);
      try {
        this.send(frame('SUB ' + id + ' ' + topic + (group ? ' ' + group : '')));
      } catch (e) {
        this.subAcks.delete(id);
        reject(e);
      }
    });
  }

  unsubscribe(id) {
    this.handlers.delete(id);
    if (!this.closed) this.send(frame('UNSUB ' + id));
  }

  // ---------------------------------------------------------------- calling

  ensureInbox() {
    if (!this.inboxReady) {
      this.inboxReady = this.subscribe(this.inbox, null, (topic, payload) => {
        let event;
        try {
          event = JSON.parse(payload.toString('utf8'));
        } catch (e) {
          return; // malformed: counted and ignored (protocol.md, section 10)
        }
        const call = event && this.calls.get(event.requestId);
        if (call) call.onEvent(event);
      });
    }
    return this.inboxReady;
  }

  sendAlive() {
    if (this.calls.size > 0 && !this.closed) {
      this.publish('ops.ctl', encode({ v: 1, type: 'call.alive', inbox: this.inbox })).catch(() => {});
    }
  }

  async request(operationId, input, extra, onEvent) {
    await this.ensureInbox();
    const requestId = newId();
    this.calls.set(requestId, { onEvent });
    const event = Object.assign(
      { v: 1, type: 'call.requested', requestId, replyTo: this.inbox, operationId },
      extra,
      { input: input === undefined ? null : input });
    let receivers;
    try {
      receivers = await this.publish('ops.req.' + operationId, encode(event));
    } catch (e) {
      this.calls.delete(requestId);
      throw e;
    }
    if (receivers === 0) {
      this.calls.delete(requestId);
      throw new CallError('NO_RESPONDERS', 'nothing serves ' + operationId, true);
    }
    return requestId;
  }

  /** Calls a QUERY or MUTATION; resolves with its response envelope {data, meta}. */
  call(operationId, input, options = {}) {
    const timeoutMs = options.timeoutMs || 30000;
    return new Promise((resolve, reject) => {
      let requestId;
      const timer = setTimeout(() => {
        this.calls.delete(requestId);
        this.abort(requestId, 'deadline passed');
        reject(new CallError('DEADLINE_EXCEEDED', operationId + ' took longer than ' + timeoutMs + ' ms', true));
      }, timeoutMs);
      this.request(operationId, input, { deadlineMs: timeoutMs }, (event) => {
        this.calls.delete(event.requestId || requestId);
        clearTimeout(timer);
        if (event.type === 'call.responded') resolve(event.output);
        else if (event.type === 'call.error') {
          const e = event.error || {};
          reject(new CallError(e.code, e.message, e.retryable, e.details));
        }
      }).then((id) => { requestId = id; }, (e) => { clearTimeout(timer); reject(e); });
    });
  }

  /**
   * Consumes a SUBSCRIPTION with flow control: at most `demand` items in flight; each item taken
   * from the iterator asks for one more (call.demand). cancel() sends call.aborted.
   */
  stream(operationId, input, options = {}) {
    const demand = options.demand || 16;
    const items = [];
    const waiting = [];
    let ended = null;
    let requestId = null;
    const push = (result) => {
      if (waiting.length) waiting.shift()(result);
      else items.push(result);
    };
    const started = this.request(operationId, input, { demand }, (event) => {
      if (event.type === 'call.responded') push({ value: event.output, done: false });
      else {
        this.calls.delete(requestId);
        ended = event.type === 'call.error'
          ? new CallError(event.error.code, event.error.message, event.error.retryable)
          : 'completed';
        push(null);
      }
    }).then((id) => { requestId = id; }, (e) => { ended = e; push(null); });
    const spoke = this;
    return {
      cancel() {
        started.then(() => {
          if (requestId && spoke.calls.delete(requestId)) spoke.abort(requestId, 'the consumer cancelled');
        });
        ended = ended || 'cancelled';
        push(null);
      },
      [Symbol.asyncIterator]() {
        return {
          next: async () => {
            const result = items.length ? items.shift() : await new Promise((r) => waiting.push(r));
            if (result) {
              await started;
              spoke.publish('ops.ctl', encode({ v: 1, type: 'call.demand', requestId, n: 1 })).catch(() => {});
              return result;
            }
            if (ended instanceof Error) throw ended;
            return { value: undefined, done: true };
          },
        };
      },
    };
  }

  abort(requestId, reason) {
    if (requestId && !this.closed) {
      this.publish('ops.ctl', encode({ v: 1, type: 'call.aborted', requestId, reason })).catch(() => {});
    }
  }

  // ---------------------------------------------------------------- serving

  /**
   * Serves a QUERY or MUTATION: handler(input, {identity, requestId}) returns (or resolves with)
   * the output; a thrown error becomes call.error EXECUTION_ERROR (or the error's own code).
   * The identity is the one the hub authenticated the caller as, never the payload's. `spec`
   * (optional) is announced to catalogs once announce() has been called: {description,
   * inputSchema, outputSchema, type, idempotent, requiredScopes}.
   */
  async serve(operationId, handler, spec = {}) {
    const onRequest = async (topic, payload, identity) => {
      let request;
      try {
        request = JSON.parse(payload.toString('utf8'));
      } catch (e) {
        return;
      }
      if (!request || request.type !== 'call.requested' || typeof request.replyTo !== 'string'
          || !request.replyTo.startsWith('ops.inbox.') || request.operationId !== operationId) {
        return; // malformed, or not answerable: replies go only to inboxes
      }
      let reply;
      try {
        const data = await handler(request.input, { identity, requestId: request.requestId });
        reply = {
          v: 1, type: 'call.responded', requestId: request.requestId,
          output: { data: data === undefined ? null : data,
            meta: { source: 'local', operationId, timestamp: Date.now() } },
        };
      } catch (e) {
        reply = {
          v: 1, type: 'call.error', requestId: request.requestId,
          error: { code: e.code || 'EXECUTION_ERROR', message: String(e.message || e), retryable: !!e.retryable },
        };
      }
      this.publish(request.replyTo, encode(reply)).catch(() => {});
    };
    this.served = this.served || new Map();
    this.served.set(operationId, { onRequest, spec: specJson(operationId, spec) });
    await this.subscribe('ops.req.' + operationId, SERVER_GROUP, onRequest);
    if (this.nodeId) {
      await this.subscribe('ops.node.' + this.nodeId + '.req.' + operationId, null, onRequest);
      this.hello(null);
    }
  }

  /**
   * Joins discovery (protocol.md, section 17) as a node: announces the specs of what it serves
   * (node.hello now and whenever serve() adds one, node.heartbeat every heartbeatMs), answers
   * node.query and node.specs.requested, and takes requests routed to it. Catalogs (a Java
   * RemoteCatalog, `ops --ws URL list`) then list and call its operations.
   */
  async announce(options = {}) {
    this.nodeId = options.nodeId || newId();
    this.heartbeatMs = options.heartbeatMs || 2000;
    this.served = this.served || new Map();
    await this.subscribe('ops.nodes', null, (topic, payload) => {
      let event;
      try {
        event = JSON.parse(payload.toString('utf8'));
      } catch (e) {
        return;
      }
      if (event && event.type === 'node.query' && typeof event.replyTo === 'string') this.hello(event.replyTo);
    });
    await this.subscribe('ops.node.' + this.nodeId + '.specs', null, (topic, payload) => {
      let event;
      try {
        event = JSON.parse(payload.toString('utf8'));
      } catch (e) {
        return;
      }
      if (event && event.type === 'node.specs.requested' && typeof event.replyTo === 'string') {
        const specs = this.specs();
        this.publish(event.replyTo, encode({ v: 1, type: 'node.specs', nodeId: this.nodeId,
          digest: digest(specs), part: 1, parts: 1, specs })).catch(() => {});
      }
    });
    for (const [operationId, served] of this.served) {
      await this.subscribe('ops.node.' + this.nodeId + '.req.' + operationId, null, served.onRequest);
    }
    this.hello(null);
    this.heartbeat = setInterval(() => {
      if (this.closed) return;
      this.publish('ops.nodes', encode({ v: 1, type: 'node.heartbeat', nodeId: this.nodeId,
        digest: digest(this.specs()), heartbeatMs: this.heartbeatMs, inFlight: 0, draining: false }))
        .catch(() => {});
    }, this.heartbeatMs);
    this.heartbeat.unref();
  }

  specs() {
    return [...this.served.values()].map((s) => s.spec).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  hello(replyTo) {
    if (this.closed || !this.nodeId) return;
    const specs = this.specs();
    this.publish(replyTo || 'ops.nodes', encode({ v: 1, type: 'node.hello', nodeId: this.nodeId,
      digest: digest(specs), heartbeatMs: this.heartbeatMs, specs })).catch(() => {});
  }

  /** Resolves once the hub handled everything sent before. */
  flush() {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.awaitAck(this.acks, id, resolve, reject, 'sync');
      try {
        this.send(frame('SYNC ' + id));
      } catch (e) {
        this.acks.delete(id);
        reject(e);
      }
    });
  }

  close() {
    clearInterval(this.alive);
    clearInterval(this.pinger);
    if (this.heartbeat) {
      clearInterval(this.heartbeat);
      if (!this.closed) {
        this.publish('ops.nodes', encode({ v: 1, type: 'node.bye', nodeId: this.nodeId, drainMs: 0 })).catch(() => {});
      }
    }
    return new Promise((resolve) => {
      if (this.closed) return resolve();
      this.socket.once('close', () => resolve());
      this.socket.close(1000, 'bye');
    });
  }
}

module.exports = { Spoke, CallError };
