/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwarp's completion queue hook, for an in-kernel consumer that places
 * its completion processing by the CPU its completions arrive on (kdapl's
 * follow placement, kdapl/cpu.h).
 *
 * A kiwarp CQ runs its handler on its completion vector's CPU while the
 * cq_affinity module parameter was set at its creation (the default), as
 * a NIC interrupts on a vector's CPU; otherwise on the CPU that produced
 * the completion, as siw and rxe do (iw_provider/cq.c). A consumer that
 * wants the latter for its own CQs, whatever the parameter, asks for it
 * here. Such a consumer does not link against kiwarp.ko: it looks the
 * function up with symbol_get(kiwarp_cq_set_affine), which fails when
 * kiwarp is not loaded, and drops it with symbol_put() after the call.
 * symbol_get() finds GPL-only exports only: the export must stay
 * EXPORT_SYMBOL_GPL, without a namespace.
 */
#ifndef KIWARP_CQ_H
#define KIWARP_CQ_H

#include <rdma/ib_verbs.h>

/**
 * kiwarp_cq_set_affine() - choose the CPU a kiwarp CQ's handler runs on
 * @ibcq: a CQ of any RDMA device
 * @affine: true: on the CPU of its completion vector; false: on the CPU
 *	that produced the completion
 *
 * Meant right after the CQ's creation; later calls are safe too (a
 * notification raised meanwhile goes to either CPU, and still only once).
 *
 * Return: 0, or -EOPNOTSUPP if @ibcq is not a kiwarp CQ.
 * Context: any.
 */
int kiwarp_cq_set_affine(struct ib_cq *ibcq, bool affine);

#endif /* KIWARP_CQ_H */
