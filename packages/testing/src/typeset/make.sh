#!/bin/sh
# Makes the typeset PDFs that packages/library/src/extract/typeset.test.ts reads, with a real
# typesetter (groff -ms, two columns) and ghostscript (CID-keyed CJK fonts with their CMaps).
# On Debian 12 (groff 1.22.4, ghostscript 10.00.0, qpdf 11.3.0, Python 3.11):
#   apt-get install -y groff ghostscript qpdf fonts-ipafont-mincho fonts-arphic-uming fonts-nanum
#   sh packages/testing/src/typeset/make.sh
# The PDFs are committed (the tests do not need these tools); run this after editing a source.
set -eu
cd "$(dirname "$0")"
groff -ms -Tps article.ms | ps2pdf - article.pdf
# The same article from groff's own PDF writer, and with a gutter of 10 points (LaTeX's default).
groff -ms -Tpdf article.ms > article-gropdf.pdf
sed 's/^\.2C$/.MC 2.9i 0.14i/' article.ms | groff -ms -Tps | ps2pdf - article-narrow.pdf
# A short page of two columns; it and the two articles set by -Tps drawn row by row across their
# columns, as some PDF printers draw (rows.py rewrites the content streams; the pages look the same).
groff -ms -Tps -P-p4.5i,5.5i columns.ms | ps2pdf - columns.pdf
python3 rows.py columns.pdf columns-by-row.pdf
python3 rows.py article.pdf article-by-row.pdf
python3 rows.py article-narrow.pdf article-narrow-by-row.pdf
for name in ja-horizontal ja-vertical zh-hans-horizontal zh-hans-vertical zh-hant-horizontal ko-horizontal; do
  gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=pdfwrite -sCIDFMAP=cidfmap -sOutputFile="$name.pdf" "$name.ps"
done
