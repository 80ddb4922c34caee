// SPDX-License-Identifier: GPL-2.0
/*
 * kiwarp: iw_cm glue (TCP + MPA connection setup). Not yet implemented.
 */

#include "kiwarp.h"

int kiwarp_cm_connect(struct iw_cm_id *id, struct iw_cm_conn_param *p)
{
	return -EOPNOTSUPP;
}

int kiwarp_cm_accept(struct iw_cm_id *id, struct iw_cm_conn_param *p)
{
	return -EOPNOTSUPP;
}

int kiwarp_cm_reject(struct iw_cm_id *id, const void *pdata, u8 len)
{
	return -EOPNOTSUPP;
}

int kiwarp_cm_create_listen(struct iw_cm_id *id, int backlog)
{
	return -EOPNOTSUPP;
}

int kiwarp_cm_destroy_listen(struct iw_cm_id *id)
{
	return -EOPNOTSUPP;
}

void kiwarp_qp_down_work(struct work_struct *work)
{
	struct kiwarp_qp *qp = container_of(work, struct kiwarp_qp, down_work);

	kiwarp_qp_put(qp);
}
