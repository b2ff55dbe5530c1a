// The operations console: browse, describe, call and watch operations of this gateway.
// No framework and no asset from elsewhere: this file, the page and its stylesheet are all.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const state = { operations: [], selected: null, token: '', stream: null, fields: [] };

  function headers(extra) {
    const h = Object.assign({ 'Accept': 'application/json' }, extra || {});
    if (state.token) h['Authorization'] = 'Bearer ' + state.token;
    return h;
  }

  function text(tag, content, className) {
    const el = document.createElement(tag);
    if (content !== undefined) el.textContent = content;
    if (className) el.className = className;
    return el;
  }

  // ---------------------------------------------------------------- listing

  async function load() {
    $('list-status').textContent = 'Loading…';
    try {
      const response = await fetch('ops', { headers: headers() });
      const body = await response.json();
      if (!response.ok) {
        $('list-status').textContent = (body.error && body.error.message) || ('HTTP ' + response.status);
        state.operations = [];
      } else {
        state.operations = body.operations.map((spec) => Object.assign(spec, { id: spec.namespace + '.' + spec.name }));
        $('list-status').textContent = state.operations.length + ' operations';
      }
    } catch (e) {
      $('list-status').textContent = 'Could not load the operations: ' + e.message;
      state.operations = [];
    }
    render();
  }

  function render() {
    const query = $('search').value.trim().toLowerCase();
    const list = $('list');
    list.replaceChildren();
    const shown = state.operations.filter((op) =>
      !query || op.id.toLowerCase().includes(query) || (op.description || '').toLowerCase().includes(query));
    const namespaces = [...new Set(shown.map((op) => op.namespace))].sort();
    for (const ns of namespaces) {
      list.appendChild(text('div', ns, 'namespace'));
      for (const op of shown.filter((o) => o.namespace === ns).sort((a, b) => a.name.localeCompare(b.name))) {
        const button = text('button', undefined, 'op');
        button.type = 'button';
        button.dataset.id = op.id;
        button.title = op.description || op.id;
        button.appendChild(text('span', op.name));
        button.appendChild(text('span', op.type, 'type ' + op.type));
        if (state.selected && state.selected.id === op.id) button.classList.add('selected');
        button.addEventListener('click', () => select(op));
        list.appendChild(button);
      }
    }
    if (shown.length === 0 && state.operations.length > 0) {
      list.appendChild(text('p', 'Nothing matches “' + query + '”.', 'muted'));
    }
  }

  // ---------------------------------------------------------------- one operation

  function select(op) {
    stopStream();
    state.selected = op;
    render();
    $('empty').hidden = true;
    $('operation').hidden = false;
    $('op-id').textContent = op.id;
    const scopes = (op.accessControl && op.accessControl.requiredScopes) || [];
    $('op-meta').textContent = op.type + ' · version ' + op.version +
      (scopes.length ? ' · needs scopes: ' + scopes.join(', ') : ' · open to every caller');
    $('op-description').textContent = op.description || '';
    $('op-input-schema').textContent = JSON.stringify(op.inputSchema, null, 2);
    $('op-output-schema').textContent = JSON.stringify(op.outputSchema, null, 2);
    $('call').textContent = op.type === 'SUBSCRIPTION' ? 'Subscribe' : 'Call';
    $('raw-toggle').checked = false;
    $('raw').hidden = true;
    $('raw').value = '';
    buildForm(op.inputSchema || {});
    clearOutcome();
  }

  function clearOutcome() {
    $('error').hidden = true;
    $('error-fields').replaceChildren();
    $('result-section').hidden = true;
    $('events-section').hidden = true;
    $('events').replaceChildren();
    $('call-status').textContent = '';
    $('raw-error').textContent = '';
    for (const field of state.fields) setFieldError(field.name, '');
  }

  function resolve(schema, root) {
    if (schema && typeof schema.$ref === 'string' && schema.$ref.startsWith('#/')) {
      let node = root;
      for (const part of schema.$ref.substring(2).split('/')) {
        node = node && node[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      }
      return node || {};
    }
    return schema || {};
  }

  const SCALARS = ['string', 'integer', 'number', 'boolean'];

  function typeOf(schema) {
    return Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  }

  function kindOf(schema, root) {
    const type = typeOf(schema);
    if (Array.isArray(schema.enum)) return 'enum';
    if (SCALARS.includes(type)) return type;
    // An array of plain values is written one per line, not as JSON.
    if (type === 'array' && schema.items && !Array.isArray(schema.items.enum)
        && SCALARS.includes(typeOf(resolve(schema.items, root)))) return 'list';
    return 'json';
  }

  // One item per line; a value that starts with '[' is read as a JSON array instead.
  function listValue(raw, itemType) {
    if (raw.trim().startsWith('[')) return JSON.parse(raw);
    return raw.split('\n').map((line) => line.trim()).filter((line) => line !== '').map((line) => {
      if (itemType === 'string') return line;
      if (itemType === 'boolean') {
        if (line !== 'true' && line !== 'false') throw new Error('"' + line + '" is not true or false');
        return line === 'true';
      }
      const number = Number(line);
      if (Number.isNaN(number)) throw new Error('"' + line + '" is not a number');
      return number;
    });
  }

  function buildForm(inputSchema) {
    const fields = $('fields');
    fields.replaceChildren();
    state.fields = [];
    const properties = inputSchema.properties || {};
    const required = new Set(inputSchema.required || []);
    const names = Object.keys(properties);
    if (names.length === 0) {
      fields.appendChild(text('p', inputSchema.type === 'object' || Object.keys(inputSchema).length === 0
        ? 'No input fields. Use Raw JSON to send an input anyway.'
        : 'The input is not an object: use Raw JSON.', 'muted'));
      if (inputSchema.type && inputSchema.type !== 'object') {
        $('raw-toggle').checked = true;
        $('raw').hidden = false;
      }
      return;
    }
    for (const name of names) {
      const schema = resolve(properties[name], inputSchema);
      const kind = kindOf(schema, inputSchema);
      const wrapper = text('div', undefined, 'field');
      wrapper.dataset.field = name;
      const id = 'field-' + name.replace(/[^A-Za-z0-9_-]/g, '_');
      const label = text('label', name + (required.has(name) ? ' *' : ''));
      label.htmlFor = id;
      wrapper.appendChild(label);
      let input;
      if (kind === 'enum') {
        input = document.createElement('select');
        input.appendChild(new Option('', ''));
        for (const value of schema.enum) input.appendChild(new Option(JSON.stringify(value), JSON.stringify(value)));
      } else if (kind === 'boolean') {
        input = document.createElement('select');
        for (const value of ['', 'true', 'false']) input.appendChild(new Option(value, value));
      } else if (kind === 'json') {
        input = document.createElement('textarea');
        input.rows = 3;
        input.placeholder = 'JSON';
      } else if (kind === 'list') {
        input = document.createElement('textarea');
        input.rows = 3;
        input.placeholder = 'one ' + typeOf(resolve(schema.items, inputSchema)) + ' per line';
      } else {
        input = document.createElement('input');
        input.type = kind === 'string' ? 'text' : 'number';
        if (kind === 'integer') input.step = '1';
        if (kind === 'number') input.step = 'any';
      }
      input.id = id;
      input.name = name;
      wrapper.appendChild(input);
      const type = kind === 'list'
        ? 'list of ' + typeOf(resolve(schema.items, inputSchema)) + ', one per line'
        : schema.type ? [].concat(schema.type).join(' | ') : 'any';
      const hint = [type, schema.description].filter(Boolean).join(' — ');
      wrapper.appendChild(text('div', hint, 'hint'));
      wrapper.appendChild(text('div', '', 'field-error'));
      fields.appendChild(wrapper);
      const itemType = kind === 'list' ? typeOf(resolve(schema.items, inputSchema)) : undefined;
      state.fields.push({ name, kind, input, itemType, required: required.has(name) });
    }
  }

  function setFieldError(name, message) {
    const wrapper = [...document.querySelectorAll('.field')].find((el) => el.dataset.field === name);
    if (!wrapper) return false;
    wrapper.querySelector('.field-error').textContent = message;
    wrapper.classList.toggle('invalid', Boolean(message));
    return true;
  }

  // The input the form describes; throws with the field's name on JSON it cannot read.
  function formInput() {
    const input = {};
    for (const field of state.fields) {
      const raw = field.input.value;
      if (raw === '') continue;
      if (field.kind === 'integer' || field.kind === 'number') {
        input[field.name] = Number(raw);
      } else if (field.kind === 'boolean') {
        input[field.name] = raw === 'true';
      } else if (field.kind === 'list') {
        try {
          input[field.name] = listValue(raw, field.itemType);
        } catch (e) {
          const error = new Error(e.message);
          error.field = field.name;
          throw error;
        }
      } else if (field.kind === 'enum' || field.kind === 'json') {
        try {
          input[field.name] = JSON.parse(raw);
        } catch (e) {
          const error = new Error('not valid JSON: ' + e.message);
          error.field = field.name;
          throw error;
        }
      } else {
        input[field.name] = raw;
      }
    }
    return input;
  }

  function currentInput() {
    if ($('raw-toggle').checked) {
      const raw = $('raw').value.trim();
      if (raw === '') return null;
      try {
        return JSON.parse(raw);
      } catch (e) {
        const error = new Error('The raw input is not valid JSON: ' + e.message);
        error.field = '#raw';
        throw error;
      }
    }
    return formInput();
  }

  // ---------------------------------------------------------------- calling

  async function call(event) {
    event.preventDefault();
    const op = state.selected;
    if (!op) return;
    stopStream();
    clearOutcome();
    let input;
    try {
      input = currentInput();
    } catch (e) {
      if (e.field === '#raw') $('raw-error').textContent = e.message;
      else setFieldError(e.field, e.message);
      return;
    }
    if (op.type === 'SUBSCRIPTION') {
      subscribe(op, input);
      return;
    }
    $('call-status').textContent = 'Calling…';
    const started = performance.now();
    try {
      const response = await fetch('ops/' + encodeURIComponent(op.id), {
        method: 'POST',
        headers: headers({ 'Content-Type': 'application/json' }),
        body: JSON.stringify(input),
      });
      const body = await response.json();
      const ms = Math.round(performance.now() - started);
      $('call-status').textContent = 'HTTP ' + response.status + ' in ' + ms + ' ms';
      if (response.ok) showEnvelope(body);
      else showError(body.error || { code: 'HTTP ' + response.status, message: response.statusText });
    } catch (e) {
      $('call-status').textContent = '';
      showError({ code: 'NETWORK', message: e.message });
    }
  }

  function showEnvelope(envelope) {
    $('result-section').hidden = false;
    $('result').textContent = JSON.stringify(envelope, null, 2);
  }

  function showError(error) {
    $('error').hidden = false;
    $('error-code').textContent = error.code || '';
    $('error-message').textContent = error.message || '';
    const list = $('error-fields');
    list.replaceChildren();
    const errors = (error.details && Array.isArray(error.details.errors)) ? error.details.errors : [];
    for (const e of errors) {
      const path = e.instancePath || '';
      list.appendChild(text('li', (path || '(input)') + ': ' + e.message));
      // An error deep in a field (/address/city) is shown on the field (address); a missing
      // required property (reported on the object that lacks it) on that property's field.
      let top = path.split('/')[1];
      if (top === undefined && e.keyword === 'required') {
        const missing = /'([^']+)'/.exec(e.message || '');
        if (missing) top = missing[1];
      }
      if (top !== undefined && !$('raw-toggle').checked) {
        const name = top.replace(/~1/g, '/').replace(/~0/g, '~');
        const wrapper = [...document.querySelectorAll('.field')].find((el) => el.dataset.field === name);
        if (wrapper) {
          const shown = wrapper.querySelector('.field-error');
          const message = (path.split('/').length > 2 ? path + ': ' : '') + e.message;
          shown.textContent = shown.textContent ? shown.textContent + '; ' + message : message;
          wrapper.classList.add('invalid');
        }
      }
    }
  }

  // ---------------------------------------------------------------- streams

  function subscribe(op, input) {
    $('events-section').hidden = false;
    $('call-status').textContent = 'Connecting…';
    $('stop').hidden = false;
    $('call').disabled = true;
    const url = 'ops/' + encodeURIComponent(op.id) +
      (input === null || input === undefined ? '' : '?input=' + encodeURIComponent(JSON.stringify(input)));
    const handlers = {
      open: () => { $('call-status').textContent = 'Streaming'; },
      item: (id, data) => addEvent(id, data),
      completed: () => { $('call-status').textContent = 'Completed'; endStream(); },
      failed: (error) => { $('call-status').textContent = 'Failed'; showError(error); endStream(); },
    };
    // EventSource cannot send a token: with one, the stream is read with fetch instead.
    state.stream = state.token ? fetchStream(url, handlers) : eventSourceStream(url, handlers);
  }

  function eventSourceStream(url, on) {
    const source = new EventSource(url);
    source.onopen = on.open;
    source.onmessage = (e) => on.item(e.lastEventId, e.data);
    source.addEventListener('call.completed', () => { source.close(); on.completed(); });
    source.addEventListener('call.error', (e) => { source.close(); on.failed(parseError(e.data)); });
    source.onerror = () => {
      if (source.readyState === EventSource.CONNECTING) {
        // The connection dropped: EventSource reconnects with Last-Event-ID by itself.
        $('call-status').textContent = 'Reconnecting…';
        return;
      }
      // Refused before it began (an HTTP error status): EventSource does not say why; ask again
      // (the refusal is checked before anything runs, so asking twice runs nothing).
      source.close();
      fetch(url, { headers: headers() }).then((r) => r.json()).then(
        (body) => on.failed(body.error || { code: 'STREAM', message: 'The stream failed' }),
        () => on.failed({ code: 'STREAM', message: 'The stream failed' }));
    };
    return { stop: () => source.close() };
  }

  function fetchStream(url, on) {
    const controller = new AbortController();
    (async () => {
      try {
        const response = await fetch(url, { headers: headers({ 'Accept': 'text/event-stream' }), signal: controller.signal });
        if (!response.ok) {
          const body = await response.json();
          on.failed(body.error || { code: 'HTTP ' + response.status, message: response.statusText });
          return;
        }
        on.open();
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        let event = { type: 'message', data: [], id: '' };
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
            const line = buffer.substring(0, end);
            buffer = buffer.substring(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
            if (line === '') {
              if (event.data.length) {
                const data = event.data.join('\n');
                if (event.type === 'call.completed') { on.completed(); return; }
                if (event.type === 'call.error') { on.failed(parseError(data)); return; }
                on.item(event.id, data);
              }
              event = { type: 'message', data: [], id: event.id };
            } else if (!line.startsWith(':')) {
              const colon = line.indexOf(':');
              const name = colon < 0 ? line : line.substring(0, colon);
              const val = colon < 0 ? '' : line.substring(colon + 1).replace(/^ /, '');
              if (name === 'data') event.data.push(val);
              else if (name === 'event') event.type = val;
              else if (name === 'id') event.id = val;
            }
          }
        }
        on.completed();
      } catch (e) {
        if (e.name !== 'AbortError') on.failed({ code: 'STREAM', message: e.message });
      }
    })();
    return { stop: () => controller.abort() };
  }

  function parseError(data) {
    try {
      return JSON.parse(data).error;
    } catch (e) {
      return { code: 'STREAM', message: data };
    }
  }

  function addEvent(id, data) {
    const item = text('li');
    item.appendChild(text('span', '#' + id, 'id'));
    let shown = data;
    try { shown = JSON.stringify(JSON.parse(data)); } catch (e) { /* as sent */ }
    item.appendChild(text('span', shown));
    $('events').appendChild(item);
  }

  function stopStream() {
    if (state.stream) {
      state.stream.stop();
      state.stream = null;
      if ($('call-status').textContent === 'Streaming' || $('call-status').textContent === 'Connecting…') {
        $('call-status').textContent = 'Stopped';
      }
    }
    endStream();
  }

  function endStream() {
    $('stop').hidden = true;
    $('call').disabled = false;
  }

  // ---------------------------------------------------------------- wiring

  document.addEventListener('DOMContentLoaded', () => {
    $('search').addEventListener('input', render);
    $('call-form').addEventListener('submit', call);
    $('stop').addEventListener('click', stopStream);
    $('raw-toggle').addEventListener('change', () => {
      const raw = $('raw-toggle').checked;
      $('raw').hidden = !raw;
      if (raw && $('raw').value.trim() === '') {
        try { $('raw').value = JSON.stringify(formInput(), null, 2); } catch (e) { $('raw').value = '{}'; }
      }
    });
    $('auth').addEventListener('submit', (e) => {
      e.preventDefault();
      state.token = $('token').value.trim();
      state.selected = null;
      $('operation').hidden = true;
      $('empty').hidden = false;
      load();
    });
    load();
  });
})();
