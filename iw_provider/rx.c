// SPDX-License-Identifier: GPL-2.0
/*
 * kiwarp: receive path.
 */

#include "kiwarp.h"

void kiwarp_rx_work(struct work_struct *work)
{
	struct kiwarp_qp *qp = container_of(work, struct kiwarp_qp, rx_work);

	kiwarp_qp_put(qp);
}
