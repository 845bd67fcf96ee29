/* The HTML report's script (perf-plugin/html/html-report.c embeds it): draws
 * the GPU timeline from the JSON of html-gantt.c into the SVG of the
 * timeline section, zooms it (drag, iteration, zoom out, double-click) and
 * names the event under the pointer. Then it marks the page ready for the
 * tests: <html data-ready="1" data-boxes="{id: [x, y, w, h]}">. */
(function () {
	'use strict';
	var NS = 'http://www.w3.org/2000/svg';
	var LABEL = 200, ROW = 15, AXIS = 36, PAD = 8;
	var OPACITY = [0.35, 0.55, 0.78, 1];
	/* iteration bands of serving traces by phase (warm for prefill, cool for decode) */
	var PHASE_TINT = { prefill: '#fbecd9', decode: '#dfeefa', mixed: '#ece3f5' };
	var data = null, lanes = [], rows = [], view = [0, 1], height = 0, plotW = 0, drag = null;

	function $(id) { return document.getElementById(id); }

	function el(name, attrs, parent, text) {
		var e = document.createElementNS(NS, name), k;
		for (k in attrs)
			e.setAttribute(k, attrs[k]);
		if (text !== undefined)
			e.textContent = text;
		if (parent)
			parent.appendChild(e);
		return e;
	}

	/* 3 significant digits and a unit, from microseconds */
	function fmt(us) {
		var a = Math.abs(us), v = us, u = '\u00b5s';
		if (a < 1e-9)
			return '0';
		if (a >= 1e6) { v = us / 1e6; u = 's'; } else if (a >= 1e3) { v = us / 1e3; u = 'ms'; } else if (a < 1 && a > 0) { v = us * 1e3; u = 'ns'; }
		return (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2)) + ' ' + u;
	}

	function decode() {
		var q = data.q;
		data.lanes.forEach(function (l) {
			var iv = l.iv, n = iv.length / 4, s = new Float64Array(n), e = new Float64Array(n);
			var c = new Uint8Array(n), nm = new Int32Array(n), t = 0, i;
			for (i = 0; i < n; i++) {
				t += iv[4 * i];
				s[i] = t * q;
				t += iv[4 * i + 1];
				e[i] = t * q;
				c[i] = iv[4 * i + 2];
				nm[i] = iv[4 * i + 3];
			}
			lanes.push({ label: l.label, group: l.group, kind: l.kind, n: l.n, s: s, e: e, c: c, nm: nm });
		});
		/* a heading row before each group's first lane */
		var y = AXIS, last = null;
		lanes.forEach(function (l) {
			if (l.group !== last) {
				rows.push({ y: y, group: l.group });
				y += ROW + 2;
				last = l.group;
			}
			rows.push({ y: y, lane: l });
			y += ROW;
		});
		height = y + PAD;
	}

	/* the first interval of @l that ends at or after @t */
	function first(l, t) {
		var lo = 0, hi = l.e.length;
		while (lo < hi) {
			var mid = (lo + hi) >> 1;
			if (l.e[mid] < t)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo;
	}

	/* a tick's time, with as many digits as its step needs */
	function tickFmt(t, step) {
		var u = step >= 1e5 ? [1e6, 's'] : step >= 100 ? [1e3, 'ms'] : [1, '\u00b5s'];
		var d = Math.max(0, Math.min(6, Math.ceil(-Math.log10(step / u[0]) - 1e-9)));
		return Math.abs(t) < step / 1e6 ? '0' : (t / u[0]).toFixed(d) + ' ' + u[1];
	}

	function niceStep(raw) {
		var p = Math.pow(10, Math.floor(Math.log10(raw))), m = [1, 2, 2.5, 5, 10], i;
		for (i = 0; i < m.length; i++)
			if (m[i] * p >= raw)
				return m[i] * p;
		return 10 * p;
	}

	function xOf(t) { return LABEL + (t - view[0]) / (view[1] - view[0]) * plotW; }
	function tOf(x) { return view[0] + (x - LABEL) / plotW * (view[1] - view[0]); }

	function draw() {
		var svg = $('g-svg'), W = Math.max(600, svg.parentNode.clientWidth || 1200), a = view[0], b = view[1];
		var paths = {}, g, t, step, code;
		plotW = W - LABEL - PAD;
		svg.setAttribute('width', W);
		svg.setAttribute('height', height);
		svg.setAttribute('viewBox', '0 0 ' + W + ' ' + height);
		while (svg.firstChild)
			svg.removeChild(svg.firstChild);
		/* the iterations: bands to click, behind everything */
		data.steps.forEach(function (s, k) {
			if (s.b < a || s.a > b)
				return;
			var x0 = Math.max(LABEL, xOf(s.a)), x1 = Math.min(LABEL + plotW, xOf(s.b));
			var band = el('g', { 'class': 'stp' }, svg);
			/* a serving iteration's band is tinted by its phase */
			var tint = PHASE_TINT[s.phase] || (k % 2 ? '#f4f6f9' : '#eaf0f7');
			var label = (s.phase ? '[' + s.phase + '] ' : '') + s.name;
			el('rect', { x: x0, y: 2, width: Math.max(1, x1 - x0), height: height - 4, fill: tint }, band);
			if (x1 - x0 > 40)
				el('text', { x: x0 + 4, y: 13, 'class': 'tk' }, band, label);
			el('title', {}, band, label + ': ' + fmt(s.b - s.a) + ' (click to zoom to it)');
			band.addEventListener('click', function (ev) {
				if (!drag || !drag.moved)
					zoom(s.a, s.b);
				ev.stopPropagation();
			});
		});
		/* the time axis, from the trace's first GPU event */
		step = niceStep((b - a) / Math.max(2, plotW / 110));
		g = el('g', {}, svg);
		for (t = Math.ceil(a / step) * step; t <= b; t += step) {
			var x = xOf(t);
			el('line', { x1: x, x2: x, y1: AXIS - 8, y2: height - PAD, stroke: '#e1e5ea' }, g);
			if (x + 50 < LABEL + plotW)
				el('text', { x: x + 3, y: AXIS - 10, 'class': 'tk' }, g, tickFmt(t, step));
		}
		/* the lanes' names */
		rows.forEach(function (r) {
			if (r.group !== undefined) {
				el('text', { x: 6, y: r.y + ROW - 3, 'class': 'grp' }, svg, r.group);
				el('line', { x1: 0, x2: W, y1: r.y + 1, y2: r.y + 1, stroke: '#d8dee4' }, svg);
			} else {
				el('text', { x: 16, y: r.y + ROW - 4 }, svg, r.lane.label);
			}
		});
		/* the intervals: one path per colour and opacity */
		rows.forEach(function (r) {
			if (r.lane)
				lanePaths(r.lane, r.y + 2, ROW - 4, paths);
		});
		for (code in paths)
			el('path', { d: paths[code], fill: data.cats[code >> 4].color, 'fill-opacity': ((code & 15) + 1) / 16 }, svg);
		$('g-range').textContent = fmt(a) + ' \u2013 ' + fmt(b) + ' (' + fmt(b - a) + ' shown)';
	}

	/* The path pieces of lane @l at @y, @h high, into @paths by code. An
	 * interval two pixels wide or more is drawn as it is; narrower ones add
	 * their busy time to the pixels they cover, and each pixel is drawn in
	 * the category with most time there, as opaque as it is busy: a stream
	 * busy half the time looks half full, not solid. */
	var bins = new Float64Array(0);
	function lanePaths(l, y, h, paths) {
		var a = view[0], b = view[1], k = plotW / (b - a), n = Math.ceil(plotW), i, p, c;
		var rx0 = 0, rx1 = -1, rc = -1, runX = 0, runC = -1;
		/* @cat in 1/16ths of opacity @op (1..16): the key of its path */
		function piece(cat, op, x0, w) {
			var key = cat * 16 + op - 1;
			paths[key] = (paths[key] || '') + 'M' + x0.toFixed(1) + ' ' + y + 'h' + w.toFixed(1) + 'v' + h + 'h' + (-w).toFixed(1) + 'z';
		}
		function flushRect() {
			if (rc >= 0)
				piece(rc & 7, Math.round(OPACITY[(rc >> 3) & 3] * 16), LABEL + rx0, rx1 - rx0);
			rc = -1;
		}
		if (bins.length < n * 8)
			bins = new Float64Array(n * 8);
		else
			bins.fill(0, 0, n * 8);
		for (i = first(l, a); i < l.s.length && l.s[i] <= b; i++) {
			var x0 = Math.max(0, (l.s[i] - a) * k), x1 = Math.min(plotW, (l.e[i] - a) * k);
			c = l.c[i] & 63;
			if (x1 - x0 >= 2) {
				if (c === rc && x0 <= rx1 + 0.5) {
					rx1 = Math.max(rx1, x1);
					continue;
				}
				flushRect();
				rx0 = x0;
				rx1 = x1;
				rc = c;
				continue;
			}
			/* an event of no length still counts, to show faintly */
			var busy = (((c >> 3) & 3) + 1) / 4, p0 = Math.min(n - 1, Math.floor(x0)), p1 = Math.min(n - 1, Math.floor(x1));
			bins[p0 * 8 + (c & 7)] += 1e-9;
			for (p = p0; p <= p1; p++) {
				var ov = Math.min(x1, p + 1) - Math.max(x0, p);
				if (ov > 0)
					bins[p * 8 + (c & 7)] += ov * busy;
			}
		}
		flushRect();
		for (p = 0; p <= n; p++) {
			var code = -1;
			if (p < n) {
				var tot = 0, best = 0, j;
				for (j = 0; j < 8; j++) {
					tot += bins[p * 8 + j];
					if (bins[p * 8 + j] > bins[p * 8 + best])
						best = j;
				}
				/* as opaque as the pixel is busy, a faint trace at least */
				if (tot > 0)
					code = best * 16 + Math.max(2, Math.min(16, Math.ceil(tot * 16))) - 1;
			}
			if (code !== runC) {
				if (runC >= 0)
					piece(runC >> 4, (runC & 15) + 1, LABEL + runX, p - runX);
				runC = code;
				runX = p;
			}
		}
	}

	function zoom(a, b) {
		var span = data.span, min = Math.max(data.q * 20, 0.05);
		if (b - a < min) {
			var m = (a + b) / 2;
			a = m - min / 2;
			b = m + min / 2;
		}
		view = [Math.max(-span * 0.01, a), Math.min(span * 1.01, b)];
		draw();
	}

	/* the interval of the lane at @y nearest to @x (within 2 px), or null */
	function hit(x, y) {
		var r = null, i, l, t = tOf(x), tol = 2 / plotW * (view[1] - view[0]);
		rows.forEach(function (w) {
			if (w.lane && y >= w.y && y < w.y + ROW)
				r = w;
		});
		if (!r)
			return null;
		l = r.lane;
		i = first(l, t - tol);
		if (i < l.s.length && l.s[i] <= t + tol)
			return { l: l, i: i };
		return null;
	}

	function tip(ev) {
		var box = $('g-svg').getBoundingClientRect(), x = ev.clientX - box.left, y = ev.clientY - box.top;
		var h = hit(x, y), t = $('g-tip'), c;
		if (!h) {
			t.hidden = true;
			return;
		}
		c = h.l.c[h.i];
		t.textContent = '';
		t.appendChild(document.createTextNode((c & 64 ? 'several events, the longest: ' : '') + (data.names[h.l.nm[h.i]] || '?')));
		t.appendChild(document.createElement('br'));
		t.appendChild(document.createTextNode(data.cats[c & 7].name + ' \u00b7 ' + h.l.group + ', ' + h.l.label + ' \u00b7 at ' +
			fmt(h.l.s[h.i]) + ' for ' + fmt(h.l.e[h.i] - h.l.s[h.i])));
		t.hidden = false;
		t.style.left = Math.min(x + 14, box.width - 300) + 'px';
		t.style.top = (y + 16) + 'px';
	}

	function setup() {
		var svg = $('g-svg'), sel = $('g-step');
		decode();
		view = [0, data.span];
		if (data.steps.length) {
			$('g-steps').hidden = false;
			sel.appendChild(new Option('\u2013', ''));
			data.steps.forEach(function (s, k) {
				sel.appendChild(new Option((s.phase ? '[' + s.phase + '] ' : '') + s.name + ' (' + fmt(s.b - s.a) + ')', String(k)));
			});
			sel.addEventListener('change', function () {
				if (sel.value !== '')
					zoom(data.steps[+sel.value].a, data.steps[+sel.value].b);
			});
		}
		$('g-all').addEventListener('click', function () { view = [0, data.span]; draw(); });
		$('g-out').addEventListener('click', function () {
			var m = (view[0] + view[1]) / 2, w = view[1] - view[0];
			zoom(m - w, m + w);
		});
		svg.addEventListener('dblclick', function () { view = [0, data.span]; draw(); });
		svg.addEventListener('mousedown', function (ev) {
			var x = ev.clientX - svg.getBoundingClientRect().left;
			if (x < LABEL)
				return;
			drag = { x0: x, moved: false, r: el('rect', { x: x, y: 0, width: 0, height: height, fill: '#3b6fb6', 'fill-opacity': 0.15 }, svg) };
			ev.preventDefault();
		});
		window.addEventListener('mousemove', function (ev) {
			if (!drag)
				return;
			var x = Math.min(LABEL + plotW, Math.max(LABEL, ev.clientX - svg.getBoundingClientRect().left));
			drag.moved = drag.moved || Math.abs(x - drag.x0) > 4;
			drag.r.setAttribute('x', Math.min(x, drag.x0));
			drag.r.setAttribute('width', Math.abs(x - drag.x0));
			drag.x1 = x;
		});
		window.addEventListener('mouseup', function () {
			var d = drag;
			if (!d)
				return;
			if (d.r.parentNode)
				d.r.parentNode.removeChild(d.r);
			if (d.moved)
				zoom(tOf(Math.min(d.x0, d.x1)), tOf(Math.max(d.x0, d.x1)));
			setTimeout(function () { drag = null; }, 0);
		});
		svg.addEventListener('mousemove', tip);
		svg.addEventListener('mouseleave', function () { $('g-tip').hidden = true; });
		window.addEventListener('resize', draw);
		fromHash();
		draw();
	}

	/* a link to a view: #step=K (the K-th iteration, from 0) or
	 * #t=A,B (microseconds from the first event) */
	function fromHash() {
		var m = /step=(\d+)/.exec(location.hash), t = /t=([\d.]+),([\d.]+)/.exec(location.hash);
		if (m && data.steps[+m[1]]) {
			view = [data.steps[+m[1]].a, data.steps[+m[1]].b];
			$('g-step').value = m[1];
		} else if (t && +t[2] > +t[1]) {
			view = [+t[1], +t[2]];
		}
	}

	/* where each section and chart is, for the tests' pixel checks */
	function markReady() {
		var boxes = {};
		document.querySelectorAll('section[id], .chart[id], svg.tl-chart[id]').forEach(function (e) {
			var r = e.getBoundingClientRect();
			boxes[e.id] = [Math.round(r.left + window.scrollX), Math.round(r.top + window.scrollY),
				Math.round(r.width), Math.round(r.height)];
		});
		document.documentElement.setAttribute('data-boxes', JSON.stringify(boxes));
		document.documentElement.setAttribute('data-ready', '1');
	}

	var src = $('tl-gantt-data');
	if (src) {
		data = JSON.parse(src.textContent);
		setup();
	}
	if (document.readyState === 'complete')
		markReady();
	else
		window.addEventListener('load', markReady);
})();
