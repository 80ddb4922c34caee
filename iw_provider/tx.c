// SPDX-License-Identifier: GPL-2.0
/*
 * kiwarp: transmit path.
 */

#include "kiwarp.h"

void kiwarp_tx_work(struct work_struct *work)
{
	struct kiwarp_qp *qp = container_of(work, struct kiwarp_qp, tx_work);

	if (kiwarp_qp_state(qp) == KIWARP_QPS_ERROR && !READ_ONCE(qp->conn_up))
		kiwarp_qp_flush_sq(qp);
	kiwarp_qp_put(qp);
}
