"""XLA's own reading and printing of sharding text, through jaxlib's HloSharding.from_string.

Usage: python xla_shardings.py DIR. Reads DIR/in.txt (one sharding text a line) and writes
DIR/out.tsv: the input, a tab, then XLA's HloSharding::ToString() of it, or 'ERROR ' and XLA's
message. ShardingXlaAgreementTest runs it; the 'jaxlib' block of conformance/xla/shardings.tsv
was made with it.
"""
import os
import sys

from jax._src.lib import xla_client as xc

d = sys.argv[1]
with open(os.path.join(d, 'in.txt'), encoding='utf-8') as f, \
        open(os.path.join(d, 'out.tsv'), 'w', encoding='utf-8') as out:
    for line in f:
        s = line.rstrip('\n')
        try:
            r = str(xc.HloSharding.from_string(s))
        except Exception as e:  # XLA's parser reports every problem as an exception
            r = 'ERROR ' + ' '.join(str(e).split())
        out.write(s + '\t' + r + '\n')
