"""Redraws a PDF's text row by row across its columns, as some PDF printers draw a two-column page.

Usage: python3 rows.py in.pdf out.pdf   (needs qpdf and fix-qdf on the PATH; see make.sh)

The page is what a real typesetter made; only the order of drawing changes. Each page's content
stream (uncompressed by qpdf --qdf) is read inside its BT ... ET blocks, where the text is placed
by relative moves (Td, TD, T*, ' and ") from one piece to the next. Every piece of text from one
move to the next becomes a segment placed by an absolute Tm, carrying the font, spacing and
leading it was drawn with, so it can be drawn in any order and land at the same place. The
segments are then drawn top to bottom by baseline (a stable sort: on a shared baseline, the left
column's piece, drawn first, stays first): row 1 of the left column, row 1 of the right one,
row 2 of the left ... Everything outside the text blocks is left as it was.

Written for ghostscript's pdfwrite output (groff -Tps | ps2pdf 10.00.0), whose text blocks hold
only text operators: a block holding any other operator (a colour, as groff's own -Tpdf writes) is
refused rather than misdrawn. Checked by rendering: pdftoppm draws the pages before and after
alike, pixel for pixel.
"""

import re
import subprocess
import sys
import tempfile

TOKEN = re.compile(
    rb"\((?:\\.|[^\\()]|\((?:\\.|[^\\()])*\))*\)"  # a string (one level of nested parentheses)
    rb"|<[0-9A-Fa-f\s]*>"  # a hex string
    rb"|\[|\]"  # array brackets
    rb"|/[^\s/\[\]()<>{}%]+"  # a name
    rb"|[-+]?(?:\d+\.?\d*|\.\d+)"  # a number
    rb"|[A-Za-z'\"*]+",  # an operator
    re.S,
)
TEXT_STATE = {b"Tf", b"Tc", b"Tw", b"Tz", b"TL", b"Ts", b"Tr"}
SHOWS = {b"Tj", b"TJ"}


def fmt(n):
    return (b"%.6f" % n).rstrip(b"0").rstrip(b".")


class Block:
    """One BT ... ET block's text, cut into segments that each start with an absolute Tm."""

    def __init__(self):
        self.state = {b"Tc": [b"0"], b"Tw": [b"0"], b"Tz": [b"100"], b"TL": [b"0"], b"Ts": [b"0"], b"Tr": [b"0"]}
        self.line = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]  # the text line matrix (Tlm)
        self.segments = []  # (y, bytes)
        self.current = None

    def move(self, tx, ty):
        a, b, c, d, e, f = self.line
        self.line = [a, b, c, d, tx * a + ty * c + e, tx * b + ty * d + f]
        self.current = None

    def start(self):
        """A new segment at the line matrix, with the whole text state it is drawn in."""
        prefix = b"".join(b" ".join(args + [op]) + b"\n" for op, args in self.state.items())
        self.current = [prefix + b" ".join(fmt(v) for v in self.line) + b" Tm\n"]
        self.segments.append((self.line[5], self.current))

    def op(self, name, args):
        if name in TEXT_STATE:
            self.state[name] = args
            if self.current is not None:
                self.current.append(b" ".join(args + [name]) + b"\n")
        elif name == b"Td":
            self.move(float(args[0]), float(args[1]))
        elif name == b"TD":
            self.state[b"TL"] = [fmt(-float(args[1]))]
            self.move(float(args[0]), float(args[1]))
        elif name == b"Tm":
            self.line = [float(v) for v in args]
            self.current = None
        elif name in (b"T*", b"'", b'"'):
            self.move(0, -float(self.state[b"TL"][0]))
            if name == b"'":
                self.op(b"Tj", args)
            elif name == b'"':
                self.op(b"Tw", [args[0]])
                self.op(b"Tc", [args[1]])
                self.op(b"Tj", args[2:])
        elif name in SHOWS:
            if self.current is None:
                self.start()
            self.current.append(b" ".join(args + [name]) + b"\n")
        else:
            raise SystemExit(f"unexpected operator in a text block: {name.decode()}")

    def drawn_by_rows(self):
        rows = sorted(self.segments, key=lambda s: -round(s[0], 1))
        return b"".join(b"".join(parts) for _, parts in rows)


def rewrite(content):
    """The content stream with each text block's segments drawn by rows."""
    out = []
    pos = 0
    for bt in re.finditer(rb"\bBT\b(.*?)\bET\b", content, re.S):
        out.append(content[pos : bt.start(1)])
        block = Block()
        args = []
        depth = 0
        for tok in TOKEN.findall(bt.group(1)):
            if tok == b"[":
                depth += 1
            elif tok == b"]":
                depth -= 1
            if depth > 0 or tok == b"]" or not re.fullmatch(rb"[A-Za-z'\"*]+", tok):
                args.append(tok)
                continue
            # An array's parts were collected one by one: join them back into one operand.
            if b"[" in args:
                i = args.index(b"[")
                args = args[:i] + [b"".join(args[i:])]
            block.op(tok, args)
            args = []
        out.append(b"\n" + block.drawn_by_rows())
        pos = bt.end(1)
    out.append(content[pos:])
    return b"".join(out)


def main(source, target):
    with tempfile.TemporaryDirectory() as tmp:
        qdf = f"{tmp}/in.qdf.pdf"
        subprocess.run(["qpdf", "--qdf", "--object-streams=disable", source, qdf], check=True)
        data = open(qdf, "rb").read()
        # qpdf --qdf marks each page's content stream with this comment.
        pages = re.compile(rb"(%% Contents for page \d+\n.*?\nstream\n)(.*?)(endstream)", re.S)
        edited = pages.sub(lambda m: m.group(1) + rewrite(m.group(2)) + m.group(3), data)
        with open(f"{tmp}/out.qdf.pdf", "wb") as f:
            f.write(edited)
        fixed = subprocess.run(["fix-qdf", f"{tmp}/out.qdf.pdf"], check=True, capture_output=True).stdout
        with open(f"{tmp}/fixed.qdf.pdf", "wb") as f:
            f.write(fixed)
        subprocess.run(["qpdf", "--compress-streams=y", "--deterministic-id", f"{tmp}/fixed.qdf.pdf", target], check=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
