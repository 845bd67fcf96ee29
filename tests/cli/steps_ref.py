#!/usr/bin/python3
"""Independent reference for `tlreplay steps` and `tlreplay annotations`:
plain json, runtime -> GPU links by correlation id. Prints, per step,
"step N wall_ms busy_ms compute_ms ngpu" and, per CPU annotation name,
"ann NAME count ngpu busy_ms proj_ms" (ms rounded to 3 decimals)."""
import gzip, json, re, sys

path = sys.argv[1]
op = gzip.open if open(path, 'rb').read(2) == b'\x1f\x8b' else open
d = json.load(op(path, 'rt'))
ev = d['traceEvents'] if isinstance(d, dict) else d
GPU = ('kernel', 'gpu_memcpy', 'gpu_memset')
RT = ('cuda_runtime', 'cuda_driver')
rt = {}
for e in ev:
    if e.get('cat') in RT and e.get('ph') == 'X':
        c = e.get('args', {}).get('correlation')
        if c is not None:
            rt[c] = e
gpu = []  # (gpu event, launching runtime event)
for e in ev:
    if e.get('cat') in GPU and e.get('ph') == 'X':
        c = e.get('args', {}).get('correlation')
        if c in rt:
            gpu.append((e, rt[c]))

def union(iv):
    iv = sorted(iv)
    tot, cs, ce = 0.0, None, None
    for s, t in iv:
        if cs is None or s > ce:
            if cs is not None:
                tot += ce - cs
            cs, ce = s, t
        else:
            ce = max(ce, t)
    if cs is not None:
        tot += ce - cs
    return tot

def iscomm(n):
    n = n.lower()
    return 'nccl' in n or 'rccl' in n or 'cross_device_reduce' in n

steps = []
for e in ev:
    if e.get('ph') == 'X' and e.get('cat') in ('user_annotation', 'cpu_op'):
        m = re.match(r'ProfilerStep\s*#\s*(\d+)', e.get('name', ''))
        if m:
            steps.append((e['ts'], int(m.group(1)), e))
steps.sort(key=lambda x: x[0])
for ts, n, s in steps:
    mine = [g for g, r in gpu if s['ts'] <= r['ts'] < s['ts'] + s['dur']]
    busy = union([(g['ts'], g['ts'] + g['dur']) for g in mine])
    comp = union([(g['ts'], g['ts'] + g['dur']) for g in mine
                  if g['cat'] != 'gpu_memcpy' and not iscomm(g['name'])])
    print('step %d %.3f %.3f %.3f %d' % (n, s['dur'] / 1e3, busy / 1e3, comp / 1e3, len(mine)))

rows = {}
for a in ev:
    if a.get('cat') != 'user_annotation' or a.get('ph') != 'X':
        continue
    r = rows.setdefault(a['name'], [0, 0, [], 0.0])
    r[0] += 1
    mine = [g for g, l in gpu if l['pid'] == a['pid'] and l['tid'] == a['tid']
            and a['ts'] <= l['ts'] < a['ts'] + a['dur']]
    r[1] += len(mine)
    r[2] += [(g['ts'], g['ts'] + g['dur']) for g in mine]
    if mine:
        r[3] += max(g['ts'] + g['dur'] for g in mine) - min(g['ts'] for g in mine)
for name in sorted(rows):
    c, k, iv, proj = rows[name]
    print('ann %s\t%d %d %.3f %.3f' % (name, c, k, union(iv) / 1e3, proj / 1e3))
