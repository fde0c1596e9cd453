/**
 * The dashboard's script (plain ES5-ish JavaScript, run by the browser as served). It listens to
 * `/events` (server-sent events: the first message carries everything, later ones the status and the
 * equity points after the last one it has) and redraws; the controls POST to `/control/…` with the
 * token the user typed (kept in the tab's sessionStorage, never in the page's source).
 *
 * Only ASCII inside the template: the bundle turns every other character of a raw template into `?`
 * (scripts/bundle.ts), so the script's strings write `\u2013` for a dash.
 */
export const DASHBOARD_SCRIPT = String.raw`
(function () {
  'use strict';
  window.onerror = function (message, source, line) {
    var text = String(message) + (line ? ' (line ' + line + ')' : '');
    document.body.dataset.error = text;
    var el = document.getElementById('errors');
    el.hidden = false;
    el.textContent += text + '\n';
  };
  var LWC = window.LightweightCharts;
  var charts = {};
  var lastStatus = null;
  var fillsShown = 0;
  var tokenInput = document.getElementById('token');
  var actorInput = document.getElementById('actor');
  tokenInput.value = sessionStorage.getItem('propbot-token') || '';
  tokenInput.addEventListener('input', function () { sessionStorage.setItem('propbot-token', tokenInput.value); if (lastStatus) renderControls(lastStatus); });

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) {
      if (k === 'text') e.textContent = attrs[k];
      else if (k === 'onclick') e.addEventListener('click', attrs[k]);
      else if (k === 'disabled') e.disabled = !!attrs[k];
      else e.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c !== null && c !== undefined) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return e;
  }
  function num(v, places) {
    if (v === null || v === undefined || v === '') return '\u2013';
    var n = Number(v);
    if (!isFinite(n)) return String(v);
    return n.toLocaleString('en-US', { minimumFractionDigits: places, maximumFractionDigits: places });
  }
  function signed(v, places) {
    var t = num(v, places);
    return el('span', { 'class': Number(v) > 0 ? 'pos' : Number(v) < 0 ? 'neg' : '', text: t });
  }
  function time(v) {
    if (v === null || v === undefined) return '\u2013';
    var d = new Date(typeof v === 'number' ? v : Date.parse(v));
    return d.toISOString().slice(0, 19).replace('T', ' ');
  }
  // Tables are updated in place, row by row (keyed) and cell by cell: a cell is rewritten only when its
  // content changed, so a button under the user's pointer is not replaced by an identical one mid-click.
  function signature(c) {
    if (c !== null && typeof c === 'object' && c.nodeType) return c.dataset && c.dataset.control ? 'button:' + c.dataset.control + ':' + c.dataset.path + ':' + c.textContent : c.outerHTML;
    return 'text:' + (c === null || c === undefined ? '\u2013' : String(c));
  }
  function table(id, head, rows) {
    var t = document.getElementById(id);
    var headSig = head.map(function (h) { return h.label; }).join('|');
    if (t.dataset.head !== headSig) {
      t.textContent = '';
      var tr = el('tr');
      head.forEach(function (h) { tr.appendChild(el('th', { 'class': h.num ? 'num' : '', text: h.label })); });
      t.appendChild(el('thead', null, [tr]));
      t.appendChild(el('tbody'));
      t.dataset.head = headSig;
    }
    var body = t.tBodies[0];
    var existing = {};
    Array.prototype.forEach.call(body.rows, function (r) { existing[r.dataset.key] = r; });
    if (rows.length === 0) rows = [{ key: '__none', none: true, cells: [] }];
    var wanted = rows.map(function (r, i) {
      var key = r.key || String(i);
      var row = existing[key];
      delete existing[key];
      if (!row) {
        row = el('tr');
        row.dataset.key = key;
        if (r.none) row.appendChild(el('td', { 'class': 'dim', colspan: String(head.length), text: 'none' }));
      }
      Object.keys(r.attrs || {}).forEach(function (k) { if (row.getAttribute(k) !== r.attrs[k]) row.setAttribute(k, r.attrs[k]); });
      r.cells.forEach(function (c, j) {
        var td = row.cells[j] || row.appendChild(el('td', { 'class': head[j] && head[j].num ? 'num' : '' }));
        var sig = signature(c);
        if (td.dataset.sig !== sig) {
          td.textContent = '';
          if (c !== null && typeof c === 'object' && c.nodeType) td.appendChild(c); else td.textContent = c === null || c === undefined ? '\u2013' : String(c);
          td.dataset.sig = sig;
        } else if (td.firstChild && td.firstChild.tagName === 'BUTTON') {
          td.firstChild.disabled = !canControl();
        }
      });
      return row;
    });
    Object.keys(existing).forEach(function (k) { existing[k].remove(); });
    wanted.forEach(function (row, i) { if (body.rows[i] !== row) body.insertBefore(row, body.rows[i] || null); });
  }
  function canControl() { return !!(lastStatus && lastStatus.control && tokenInput.value); }
  function control(path, what, confirmText) {
    if (confirmText && !window.confirm(confirmText)) return;
    var toast = document.getElementById('toast');
    toast.textContent = what + '\u2026';
    fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ' + tokenInput.value },
      body: JSON.stringify({ actor: actorInput.value || 'dashboard' })
    }).then(function (res) {
      return res.json().then(function (body) {
        toast.textContent = res.ok ? what + ': ' + body.outcome + (body.intentId ? ' (intent ' + body.intentId + ')' : '') : what + ' failed: ' + (body.message || body.error);
        toast.className = res.ok ? 'ok' : 'bad';
        document.body.dataset.lastControl = res.ok ? body.action + ':' + body.outcome : 'error:' + body.error;
      });
    }).catch(function (err) { toast.textContent = what + ' failed: ' + err; toast.className = 'bad'; });
  }
  function button(label, path, what, opts) {
    opts = opts || {};
    return el('button', {
      'class': opts.danger ? 'danger' : '', 'data-control': opts.id || path, 'data-path': path, text: label, disabled: !canControl(),
      onclick: function () { control(path, what, opts.confirm); }
    });
  }

  function accountCard(a) {
    var id = 'acct-' + a.accountId;
    var card = document.getElementById(id);
    if (!card) {
      card = el('section', { id: id, 'data-account': a.accountId }, [
        el('h2', null, [el('span', { 'class': 'title' }), el('span', { 'class': 'badge state' }), el('span', { 'class': 'dim reason' }), el('span', { 'class': 'grow' }), el('span', { 'class': 'buttons' })]),
        el('div', { 'class': 'figures' }),
        el('div', { 'class': 'chart', id: 'chart-' + a.accountId }),
        el('div', { 'class': 'grid2' }, [
          el('div', null, [el('h2', { text: 'Headroom' }), el('table', { id: 'headroom-' + a.accountId })]),
          el('div', null, [el('h2', { text: 'Active orders' }), el('div', { 'class': 'scroll' }, [el('table', { id: 'orders-' + a.accountId })])])
        ]),
        el('h2', { text: 'Open positions' }),
        el('table', { id: 'positions-' + a.accountId })
      ]);
      document.getElementById('accounts').appendChild(card);
    }
    return card;
  }

  function chartFor(accountId) {
    if (charts[accountId]) return charts[accountId];
    var box = document.getElementById('chart-' + accountId);
    var chart = LWC.createChart(box, {
      width: box.clientWidth || 900, height: 280, autoSize: true,
      layout: { background: { color: '#151b23' }, textColor: '#d5dde8', attributionLogo: true },
      grid: { vertLines: { color: '#1f2733' }, horzLines: { color: '#1f2733' } },
      timeScale: { timeVisible: true, secondsVisible: false },
      rightPriceScale: { borderVisible: false }
    });
    var floor = function (color, title) {
      return chart.addSeries(LWC.LineSeries, { color: color, lineWidth: 1, lineStyle: LWC.LineStyle.Dashed, lineType: LWC.LineType.WithSteps, title: title, priceLineVisible: false, crosshairMarkerVisible: false });
    };
    charts[accountId] = {
      chart: chart,
      equity: chart.addSeries(LWC.LineSeries, { color: '#58a6ff', lineWidth: 2, title: 'equity' }),
      daily: floor('#d29922', 'daily floor'),
      total: floor('#f85149', 'total floor'),
      trailing: floor('#bc8cff', 'trailing floor'),
      last: -1,
      points: 0
    };
    return charts[accountId];
  }

  function addPoints(accountId, points) {
    var c = chartFor(accountId);
    points.forEach(function (p) {
      if (p.t < c.last) return;
      c.last = p.t;
      c.points += 1;
      c.equity.update({ time: p.t, value: p.equity });
      if (p.daily !== null) c.daily.update({ time: p.t, value: p.daily });
      if (p.total !== null) c.total.update({ time: p.t, value: p.total });
      if (p.trailing !== null) c.trailing.update({ time: p.t, value: p.trailing });
    });
    if (c.points > 0) document.getElementById('chart-' + accountId).dataset.points = String(c.points);
  }

  function renderAccount(a) {
    var card = accountCard(a);
    card.querySelector('.title').textContent = 'Account ' + a.accountId + (a.phase ? ' \u00b7 ' + a.phase : '');
    var badge = card.querySelector('.state');
    badge.textContent = a.guard.state;
    badge.className = 'badge state ' + a.guard.state;
    card.querySelector('.reason').textContent = a.guard.reason || '';
    card.dataset.guardState = a.guard.state;
    var figs = card.querySelector('.figures');
    figs.textContent = '';
    [['equity', num(a.equity, 2)], ['balance', num(a.balance, 2)], ['free balance', num(a.freeBalance, 2)], ['realised pnl (run)', signed(a.realisedPnl, 2)], ['trades closed', String(a.trades)], ['fills', String(a.fills)]]
      .forEach(function (f) { figs.appendChild(el('div', null, [el('span', { text: f[0] }), el('b', null, [f[1]])])); });
    var buttons = card.querySelector('.buttons');
    var halted = a.guard.state === 'HALTED';
    if (buttons.dataset.halted !== String(halted)) {
      buttons.textContent = '';
      buttons.appendChild(button('Flatten account', '/control/accounts/' + encodeURIComponent(a.accountId) + '/flatten', 'flatten', { danger: true, id: 'flatten', confirm: 'Flatten account ' + a.accountId + '? Every order is cancelled and every position closed at market; the account stays HALTED until resumed.' }));
      if (halted) buttons.appendChild(button('Resume account', '/control/accounts/' + encodeURIComponent(a.accountId) + '/resume', 'resume account', { id: 'resume-account' }));
      buttons.dataset.halted = String(halted);
    }
    var rules = Object.keys(a.headroom);
    table('headroom-' + a.accountId, [{ label: 'floor' }, { label: 'level', num: true }, { label: 'headroom', num: true }],
      rules.map(function (r) { return { key: r, cells: [r, num(a.headroom[r].floor, 2), signed(a.headroom[r].headroom, 2)] }; }));
    table('positions-' + a.accountId,
      [{ label: 'asset' }, { label: 'side' }, { label: 'size', num: true }, { label: 'entry', num: true }, { label: 'mark', num: true }, { label: 'leverage', num: true }, { label: 'unrealised', num: true }, { label: 'realised', num: true }, { label: 'stop', num: true }, { label: 'take', num: true }, { label: 'opened' }],
      a.positions.map(function (p) {
        return { key: p.positionId, attrs: { 'data-position': p.positionId }, cells: [p.asset + (p.external ? ' (external)' : ''), p.direction, num(p.size, 6), num(p.entryPrice, 2), num(p.markPrice, 2), p.leverage === null ? '\u2013' : num(p.leverage, 2) + '\u00d7', signed(p.unrealisedPnl, 2), signed(p.realisedPnl, 2), num(p.stopLoss, 2), num(p.takeProfit, 2), time(p.openedAt)] };
      }));
    table('orders-' + a.accountId,
      [{ label: 'type' }, { label: 'side' }, { label: 'trigger', num: true }, { label: 'amount', num: true }, { label: 'created' }, { label: '' }],
      a.activeOrders.map(function (o) {
        return { key: o.id, attrs: { 'data-order': o.id }, cells: [o.type + (o.external ? ' (external)' : ''), o.direction, num(o.triggerPrice, 2), num(o.amount, 2), time(o.createdAt),
          button('Cancel', '/control/orders/' + encodeURIComponent(o.id) + '/cancel', 'cancel ' + o.type + ' order', { id: 'cancel' })] };
      }));
  }

  function renderControls(status) {
    var state = document.getElementById('control-state');
    state.textContent = status.control ? (tokenInput.value ? 'controls unlocked' : 'type the control token to use the controls') : 'read-only (no control token configured)';
    tokenInput.disabled = !status.control;
    Array.prototype.forEach.call(document.querySelectorAll('button[data-control]'), function (b) { b.disabled = !canControl(); });
  }

  function render(state) {
    var s = state.status;
    lastStatus = s;
    document.getElementById('mode').textContent = s.mode + ' mode' + (s.stopping ? ' \u00b7 stopping' : '');
    document.getElementById('clock').textContent = time(s.now) + ' UTC';
    s.accounts.forEach(function (a) {
      renderAccount(a);
      addPoints(a.accountId, state.equity[a.accountId] || []);
    });
    table('strategies', [{ label: 'name' }, { label: 'account' }, { label: 'assets' }, { label: 'state' }, { label: 'intents', num: true }, { label: 'error' }, { label: '' }],
      s.strategies.map(function (st) {
        var shown = st.paused ? 'paused' : st.state;
        return { key: st.name, attrs: { 'data-strategy': st.name, 'data-state': shown }, cells: [st.name + ' ' + st.version, st.accountId, st.assets.join(', '), el('span', { 'class': shown, text: shown + (st.pausedReason ? ' (' + st.pausedReason + ')' : '') }), String(st.intents), st.error || '',
          st.paused ? button('Resume', '/control/strategies/' + encodeURIComponent(st.name) + '/resume', 'resume ' + st.name, { id: 'resume' })
                    : button('Pause', '/control/strategies/' + encodeURIComponent(st.name) + '/pause', 'pause ' + st.name, { id: 'pause' })] };
      }));
    var fills = state.fills.slice().reverse();
    table('fills', [{ label: 'time' }, { label: 'asset' }, { label: 'action' }, { label: 'side' }, { label: 'size', num: true }, { label: 'price', num: true }, { label: 'pnl', num: true }, { label: 'fee', num: true }, { label: 'origin' }],
      fills.map(function (f) {
        return { key: f.id, attrs: { 'data-fill': f.id, 'data-origin': f.origin }, cells: [time(f.at), f.asset, f.action, f.direction, num(f.size, 6), num(f.price, 2), f.realisedPnl === null ? '\u2013' : signed(f.realisedPnl, 2), num(f.fee, 2), f.origin === 'strategy' && f.strategy ? f.strategy : f.origin] };
      }));
    fillsShown = state.fills.length;
    document.body.dataset.fills = String(fillsShown);
    var decisions = state.decisions.slice().reverse();
    table('decisions', [{ label: 'time' }, { label: 'strategy' }, { label: 'intent' }, { label: 'verdict' }, { label: 'code' }, { label: 'why' }],
      decisions.map(function (d) {
        return { key: d.intentId + ':' + d.at, attrs: { 'data-decision': d.intentId, 'data-verdict': d.verdict }, cells: [time(d.at), d.strategy, d.summary, el('span', { 'class': d.verdict, text: d.verdict }), d.code || '', d.reason || ''] };
      }));
    table('guard-changes', [{ label: 'time' }, { label: 'account' }, { label: 'from' }, { label: 'to' }, { label: 'reason' }],
      state.guardChanges.slice().reverse().map(function (c) {
        return { key: c.accountId + ':' + c.at + ':' + c.to, cells: [time(c.at), c.accountId, el('span', { 'class': c.from, text: c.from }), el('span', { 'class': c.to, text: c.to }), c.reason] };
      }));
    renderControls(s);
    if (Object.keys(charts).length === s.accounts.length) {
      document.body.dataset.charts = String(document.querySelectorAll('.chart canvas').length > 0 ? Object.keys(charts).length : 0);
      document.body.dataset.rendered = 'ok';
    }
  }

  var live = document.getElementById('live');
  var source = new EventSource('/events');
  source.addEventListener('state', function (e) {
    live.textContent = 'live';
    live.className = 'badge ACTIVE';
    render(JSON.parse(e.data));
  });
  source.addEventListener('failure', function (e) { live.textContent = 'server error: ' + JSON.parse(e.data).message; live.className = 'badge HALTED'; });
  source.onerror = function () { live.textContent = 'disconnected; retrying'; live.className = 'badge HALTED'; };
})();
`;
