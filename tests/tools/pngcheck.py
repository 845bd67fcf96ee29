#!/usr/bin/env python3
"""PNG checks for the HTML report's browser test (tests/cli/test_html.sh),
with the standard library only (zlib; no PIL on the test machines).

  pngcheck.py ink PNG X Y W H      fraction of pixels in the box that are
                                   coloured (the charts' bars, events and
                                   points: max - min channel >= 50), not
                                   white, grey, text or the pale bands
  pngcheck.py crop PNG X Y W H OUT  write that box as a PNG (for looking)
  pngcheck.py size PNG             "W H"
  pngcheck.py boxes PNG DOM ID...  for each ID of the page's data-boxes (in
                                   the DOM Chromium dumped), "ID INK", INK
                                   the fraction as for ink, or "ID absent" /
                                   "ID outside" (not in the PNG)

The decoder takes what Chromium writes: 8-bit RGB or RGBA, not interlaced,
any of the five filters.
"""
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("%s: not a PNG" % path)
    pos, idat, w = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or color not in (2, 6) or interlace:
                raise ValueError("%s: only 8-bit RGB/RGBA, not interlaced" % path)
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    rows, prev, p = [], bytearray(stride), 0
    for _ in range(h):
        ft, line = raw[p], bytearray(raw[p + 1:p + 1 + stride])
        p += 1 + stride
        if ft == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif ft == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 255
        elif ft == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif ft == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def box(args, w, h):
    x, y, bw, bh = (int(float(v)) for v in args)
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(w, x + bw), min(h, y + bh)
    return x0, y0, x1, y1


def ink(path, args):
    png = read_png(path)
    print("%.4f" % fraction(png, *box(args, png[0], png[1])))


def fraction(png, x0, y0, x1, y1):
    w, h, bpp, rows = png
    total = inked = 0
    for y in range(y0, y1):
        line = rows[y]
        for x in range(x0, x1):
            total += 1
            px = line[x * bpp:x * bpp + 3]
            if max(px) - min(px) >= 50:
                inked += 1
    return inked / total if total else 0.0


def boxes(path, dom, ids):
    import html
    import json
    import re

    text = open(dom, encoding="utf-8", errors="replace").read()
    m = re.search(r'data-boxes="([^"]*)"', text)
    found = json.loads(html.unescape(m.group(1))) if m else {}
    png = read_png(path)
    for i in ids:
        if i not in found:
            print(i, "absent")
            continue
        x, y, bw, bh = found[i]
        if y + bh > png[1] or x + bw > png[0] or bw <= 0 or bh <= 0:
            print(i, "outside")
            continue
        print(i, "%.4f" % fraction(png, x, y, x + bw, y + bh))


def crop(path, args, out):
    w, h, bpp, rows = read_png(path)
    x0, y0, x1, y1 = box(args, w, h)
    raw = b"".join(b"\x00" + bytes(rows[y][x0 * bpp:x1 * bpp]) for y in range(y0, y1))

    def chunk(kind, body):
        c = struct.pack(">I", len(body)) + kind + body
        return c + struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff)

    with open(out, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", x1 - x0, y1 - y0, 8, 2 if bpp == 3 else 6, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 6)))
        f.write(chunk(b"IEND", b""))


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    if cmd == "ink":
        ink(path, sys.argv[3:7])
    elif cmd == "crop":
        crop(path, sys.argv[3:7], sys.argv[7])
    elif cmd == "boxes":
        boxes(path, sys.argv[3], sys.argv[4:])
    elif cmd == "size":
        w, h, _, _ = read_png(path)
        print(w, h)
    else:
        sys.exit("usage: pngcheck.py ink|crop|size|boxes PNG [X Y W H [OUT] | DOM ID...]")


if __name__ == "__main__":
    main()
