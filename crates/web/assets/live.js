// simpairs results: pages follow the event as clubs arrive. The server tells this page (server-sent
// events on /live) when a club's results are in; the page fetches itself again and swaps in the
// parts that changed ([data-live]), keeping the reader's scroll and focus, then says what changed.
// Without this script every page still works; it only needs a reload.
(function () {
  'use strict';

  function ordinal(n) {
    var s = ['th', 'st', 'nd', 'rd'], v = n % 100;
    return n + (s[(v - 20) % 10] || s[v] || s[0]);
  }

  // Times are written in UTC by the server; shown in the reader's own time.
  function localTimes(root) {
    var times = root.querySelectorAll('time[data-local]');
    for (var i = 0; i < times.length; i++) {
      var d = new Date(times[i].getAttribute('datetime'));
      if (!isNaN(d.getTime())) {
        var shown = { hour: '2-digit', minute: '2-digit' };
        if (times[i].getAttribute('data-local') === 'seconds') shown.second = '2-digit';
        times[i].textContent = d.toLocaleTimeString([], shown);
      }
    }
  }

  // The pair a reader last looked at: ranking pages offer to jump to it.
  function rememberPair() {
    var main = document.getElementById('main');
    if (main && main.dataset.myPair) {
      try {
        localStorage.setItem('simpairs-my-pair', JSON.stringify({ q: main.dataset.myPair, label: main.dataset.myLabel }));
      } catch (e) { /* storage refused: nothing to remember */ }
    }
    var slot = document.getElementById('my-pair');
    if (!slot) return;
    var mine = null;
    try { mine = JSON.parse(localStorage.getItem('simpairs-my-pair') || 'null'); } catch (e) { mine = null; }
    if (!mine || !mine.q) return;
    var a = slot.querySelector('a');
    var url = new URL(location.href);
    var q = new URLSearchParams(mine.q);
    ['me_club', 'me_section', 'me_pair', 'me_dir'].forEach(function (k) { url.searchParams.set(k, q.get(k) || ''); });
    url.searchParams.delete('offset');
    url.hash = 'me';
    a.href = url.pathname + url.search + url.hash;
    a.textContent = 'Jump to my pair (' + (mine.label || '') + ')';
    slot.hidden = false;
  }

  function places(root) {
    var out = {}, els = root.querySelectorAll('[data-place-key]');
    for (var i = 0; i < els.length; i++) {
      out[els[i].dataset.placeKey] = { rank: parseInt(els[i].dataset.rank, 10), label: els[i].dataset.label };
    }
    return out;
  }

  var NAMED_CLUBS = 3;

  function announce(update, before, after, closing) {
    var status = document.getElementById('live-status');
    if (!status) return;
    // A few clubs are named; a burst (many clubs sealing at once) is counted, not listed, so
    // that the message stays a line on a phone.
    var clubs = update.clubs.slice(0, NAMED_CLUBS).map(function (c) {
      if (c.withdrawn) return 'Club ' + c.name + "'s results were withdrawn";
      return 'Club ' + c.name + (c.correction ? ' sent a correction' : ' arrived');
    });
    var more = update.clubs.length - clubs.length;
    if (more > 0) clubs.push(more + ' more club' + (more === 1 ? '' : 's') + ' arrived or sent a correction');
    if (closing) clubs.unshift('The organiser closed the event: the results are final');
    var moves = [];
    Object.keys(after).forEach(function (k) {
      var a = after[k], b = before[k];
      if (b && a.rank && b.rank && a.rank !== b.rank) {
        moves.push('you moved from ' + ordinal(b.rank) + ' to ' + ordinal(a.rank) + ' (' + a.label + ')');
      }
    });
    var text = clubs.join('; ');
    if (moves.length) text += (text ? ': ' : '') + moves.join(', ');
    if (!text) return;
    var p = document.createElement('p');
    p.textContent = text;
    status.replaceChildren(p);
  }

  var busy = false, queued = null;

  function swap(doc) {
    var parts = document.querySelectorAll('[data-live]');
    for (var i = 0; i < parts.length; i++) {
      var key = parts[i].getAttribute('data-live');
      var fresh = doc.querySelector('[data-live="' + key + '"]');
      // A part holding the reader's focus (a form being typed in) is left alone.
      if (fresh && !parts[i].contains(document.activeElement)) {
        parts[i].replaceWith(document.importNode(fresh, true));
      }
    }
  }

  function shownGeneration() {
    var main = document.getElementById('main');
    return main ? parseInt(main.dataset.generation || '0', 10) : 0;
  }

  function shownClosed() {
    var main = document.getElementById('main');
    return !!main && main.dataset.closed === '1';
  }

  function update(u) {
    // A stream (re)opening says where the event is: nothing to do if the page shows that. A
    // close makes no new generation; a page still saying the results are provisional reloads.
    if (u.generation <= shownGeneration() && !(u.closed && !shownClosed())) return;
    if (busy) {
      if (queued) {
        u = { generation: u.generation, clubs: queued.clubs.concat(u.clubs), closed: u.closed || queued.closed };
      }
      queued = u;
      return;
    }
    busy = true;
    var before = places(document), closing = u.closed && !shownClosed();
    fetch(location.href, { cache: 'no-store', headers: { Accept: 'text/html' } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (html === null) return;
        var doc = new DOMParser().parseFromString(html, 'text/html');
        var x = window.scrollX, y = window.scrollY;
        swap(doc);
        var fresh = doc.getElementById('main'), main = document.getElementById('main');
        if (fresh && main) {
          main.dataset.generation = fresh.dataset.generation;
          main.dataset.closed = fresh.dataset.closed;
        }
        localTimes(document);
        rememberPair();
        window.scrollTo(x, y);
        announce(u, before, places(document), closing);
      })
      .catch(function () { /* the next update tries again */ })
      .then(function () {
        busy = false;
        if (queued) { var next = queued; queued = null; update(next); }
      });
  }

  localTimes(document);
  rememberPair();
  if (!window.EventSource) return;
  // One stream per open page. A page left for another is closed (the browser may keep it in its
  // back-forward cache, and a stream held open by each cached page would use up the few
  // connections a browser opens to one site); shown again, it catches up.
  var source = null;
  function open() {
    if (source) return;
    source = new EventSource('/live?since=' + shownGeneration());
    source.addEventListener('update', function (e) {
      try { update(JSON.parse(e.data)); } catch (err) { /* a message this page cannot read */ }
    });
  }
  window.addEventListener('pagehide', function () {
    if (source) { source.close(); source = null; }
  });
  window.addEventListener('pageshow', open);
  open();
})();
