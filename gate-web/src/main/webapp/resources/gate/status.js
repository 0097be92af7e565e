// The status page: asks for fresh panels every 2 s (JSF ajax), keeps the name filter applied across updates, and
// shows times in the viewer's local time. Nothing is fetched from anywhere but the gate.
(function () {
  function localTimes() {
    document.querySelectorAll('time[datetime]').forEach(function (t) {
      var d = new Date(t.getAttribute('datetime'));
      if (!isNaN(d)) { t.textContent = d.toLocaleTimeString(); t.title = d.toString(); }
    });
  }
  function filter() {
    var box = document.getElementById('filter');
    var q = box ? box.value.trim().toLowerCase() : '';
    document.querySelectorAll('section.panel').forEach(function (p) {
      p.style.display = !q || p.getAttribute('data-name').toLowerCase().indexOf(q) >= 0 ? '' : 'none';
    });
  }
  // an operator typing into a form, or with a panel's controls open: an update would wipe what they are doing
  function busy() {
    var a = document.activeElement;
    return (a && a.tagName === 'INPUT' && a.id !== 'filter') || document.querySelector('details.more[open]') !== null;
  }
  document.addEventListener('DOMContentLoaded', function () {
    localTimes();
    var box = document.getElementById('filter');
    if (box) { box.addEventListener('input', filter); }
    faces.ajax.addOnEvent(function (e) { if (e.status === 'success') { localTimes(); filter(); } });
    setInterval(function () {
      var tick = document.getElementById('refresh:tick');
      if (tick && !busy()) { tick.click(); }
    }, 2000);
  });
})();
