#!/bin/sh
# The hot path allocates nothing (issue 4, "no allocation per message";
# issue 16 item 4 for kdapl): no allocator is called in kiwarp's TX and
# RX works (tx.c, rx.c, whole files) nor in the functions a message
# passes through elsewhere - kiwarp's posting, completing, polling, the
# memory cursor and STag checks; kdapl's DTO posts, completion
# processing, event delivery, dispatch and LMR lookups. TCP's own skb
# allocations inside kernel_sendmsg() are TCP's, not ours.
#
#   scripts/hotpath-alloc-check.sh [<source-top>]
# Prints each offending line and exits 1; exit 0 when clean.
set -u
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
d=$top/iw_provider
alloc='\<(k[mvz]alloc|kcalloc|kmalloc_array|kmalloc_node|kvmalloc|kvzalloc|krealloc|kmemdup|kstrdup|kmem_cache_alloc|kmem_cache_zalloc|vmalloc|vzalloc|__vmalloc|alloc_pages|__alloc_pages|alloc_page|__get_free_pages?|get_zeroed_page|page_frag_alloc|alloc_skb|__alloc_skb|mempool_alloc|xa_store|xa_insert|xa_alloc|idr_alloc|radix_tree_insert)[a-z_]*[[:space:]]*\('

# hot-path functions outside tx.c/rx.c: <file under the top> <function>
funcs="iw_provider/qp.c kiwarp_post_send
iw_provider/qp.c kiwarp_post_recv
iw_provider/qp.c kiwarp_sq_complete
iw_provider/qp.c kiwarp_qp_queue
iw_provider/qp.c kiwarp_qp_kick_tx
iw_provider/cq.c kiwarp_cq_add
iw_provider/cq.c kiwarp_cq_raise
iw_provider/cq.c kiwarp_cq_notify
iw_provider/cq.c kiwarp_poll_cq
iw_provider/cq.c kiwarp_req_notify_cq
iw_provider/mem.c kiwarp_mr_get
iw_provider/mem.c kiwarp_mr_put
iw_provider/mem.c kiwarp_mr_check
iw_provider/mem.c kiwarp_mr_kva
iw_provider/mem.c kiwarp_mr_reg
iw_provider/mem.c kiwarp_mr_invalidate
iw_provider/mem.c kiwarp_cursor_init
iw_provider/mem.c kiwarp_cursor_tagged
iw_provider/mem.c kiwarp_cursor_end
iw_provider/mem.c kiwarp_cursor_enter
iw_provider/mem.c kiwarp_cursor_piece
iw_provider/mem.c kiwarp_sges_check
iw_provider/zc.c kiwarp_zc_slots
iw_provider/zc.c kiwarp_zc_send
iw_provider/zc.c kiwarp_zc_callback
iw_provider/zc.c kiwarp_zc_complete_wqe
iw_provider/zc.c kiwarp_zc_busy
kdapl/dto.c post_common
kdapl/dto.c wr_get
kdapl/dto.c wr_unget
kdapl/dto.c kdapl_dto_done
kdapl/dto.c unsig_take_before
kdapl/dto.c unsig_put_chain
kdapl/evd.c evd_cq_poll
kdapl/evd.c evd_upcalls
kdapl/evd.c evd_deliver
kdapl/evd.c evd_queue_locked
kdapl/evd.c evd_queue
kdapl/evd.c kdapl_evd_deliver
kdapl/cpu.c kdapl_dispatch_kick
kdapl/cpu.c dispatch_poll
kdapl/cpu.c follow_cpu
kdapl/cpu.c may_move
kdapl/cpu.c kdapl_dispatch_account
kdapl/cpu.c slot_add_busy
kdapl/lmr.c kdapl_lmr_get
kdapl/lmr.c kdapl_lmr_put
kdapl/lmr.c kdapl_lmr_post_pending
kdapl/lmr.c kdapl_lmr_sge_held"

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
		!infn && $0 ~ "^[A-Za-z].*[ *]" fn "\\(" && $0 !~ ";[[:space:]]*$" { infn = 1 }
		infn { print FNR ": " $0 }
		infn && /^}/ { exit }' "$top/$f")
	if [ -z "$body" ]; then
		echo "$f: $fn not found (update $0)"
		exit 1
	fi
	if echo "$body" | grep -E "$alloc" | sed "s|^|$f:|" | grep .; then
		exit 1
	fi
done || bad=1
exit $bad
