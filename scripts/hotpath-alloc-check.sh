#!/bin/sh
# kiwarp's hot path allocates nothing (issue 4, "no allocation per
# message"): no allocator is called in the TX and RX works (tx.c, rx.c,
# whole files) nor in the functions a message passes through elsewhere
# - posting, completing, polling, the memory cursor and STag checks.
# TCP's own skb allocations inside kernel_sendmsg() are TCP's, not ours.
#
#   scripts/hotpath-alloc-check.sh [<source-top>]
# Prints each offending line and exits 1; exit 0 when clean.
set -u
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
d=$top/iw_provider
alloc='\<(k[mvz]alloc|kcalloc|kmalloc_array|kmalloc_node|kvmalloc|kvzalloc|krealloc|kmemdup|kstrdup|kmem_cache_alloc|kmem_cache_zalloc|vmalloc|vzalloc|__vmalloc|alloc_pages|__alloc_pages|alloc_page|__get_free_pages?|get_zeroed_page|page_frag_alloc|alloc_skb|__alloc_skb|mempool_alloc|xa_store|xa_insert|xa_alloc|idr_alloc|radix_tree_insert)[a-z_]*[[:space:]]*\('

# hot-path functions outside tx.c/rx.c: <file> <function>
funcs="qp.c kiwarp_post_send
qp.c kiwarp_post_recv
qp.c kiwarp_sq_complete
qp.c kiwarp_qp_queue
qp.c kiwarp_qp_kick_tx
cq.c kiwarp_cq_add
cq.c kiwarp_cq_raise
cq.c kiwarp_cq_notify
cq.c kiwarp_poll_cq
cq.c kiwarp_req_notify_cq
mem.c kiwarp_mr_get
mem.c kiwarp_mr_put
mem.c kiwarp_mr_check
mem.c kiwarp_mr_kva
mem.c kiwarp_mr_reg
mem.c kiwarp_mr_invalidate
mem.c kiwarp_cursor_init
mem.c kiwarp_cursor_tagged
mem.c kiwarp_cursor_end
mem.c kiwarp_cursor_enter
mem.c kiwarp_cursor_piece
mem.c kiwarp_sges_check
zc.c kiwarp_zc_slots
zc.c kiwarp_zc_send
zc.c kiwarp_zc_callback
zc.c kiwarp_zc_complete_wqe
zc.c kiwarp_zc_busy"

bad=0
for f in tx.c rx.c; do
	if grep -nE "$alloc" "$d/$f" | sed "s|^|iw_provider/$f:|" | grep .; then
		bad=1
	fi
done
echo "$funcs" | while read -r f fn; do
	# the function's body: from its definition line to the first "}"
	# in column 0
	body=$(awk -v fn="$fn" '
		!infn && $0 ~ "^[a-z].*[ *]" fn "\\(" && $0 !~ ";[[:space:]]*$" { infn = 1 }
		infn { print FNR ": " $0 }
		infn && /^}/ { exit }' "$d/$f")
	if [ -z "$body" ]; then
		echo "iw_provider/$f: $fn not found (update $0)"
		exit 1
	fi
	if echo "$body" | grep -E "$alloc" | sed "s|^|iw_provider/$f:|" | grep .; then
		exit 1
	fi
done || bad=1
exit $bad
