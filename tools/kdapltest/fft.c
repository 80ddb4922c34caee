// SPDX-License-Identifier: GPL-2.0
/*
 * kdapltest: dapltest's function feature tests (-T F) over kDAPL
 * (Documentation/kdapltest.rst): hwconn, endpoint, pz, mem, connmgt and
 * queryinfo, case by case as dapltest numbers them (queryinfo as its
 * kDAPL build does: without the two CNO error cases).
 *
 * Every case checks the answers kDAPL documents (include/dat2/kdat.h,
 * kdapl/), with the subtype where kDAPL documents one. Where kDAPL
 * answers otherwise than dapltest expects of a uDAPL provider the case
 * checks kDAPL's documented answer and says so here:
 *  - mem case2 (length 0): DAT_INVALID_PARAMETER/DAT_INVALID_ARG4, not
 *    DAT_LENGTH_ERROR;
 *  - queryinfo case9 (RMR): dat_rmr_create() is DAT_MODEL_NOT_SUPPORTED
 *    (no kernel memory windows in Linux 6.1), so no RMR can be queried;
 *  - queryinfo case1 (CNO): kDAPL has no CNOs, the case is skipped;
 *  - queryinfo case5 (CR): as in dapltest, dat_cr_query() is left to
 *    connmgt (case2 here), the case is skipped.
 * kDAPL has no dat_evd_wait(): connmgt's waits are an upcall and a
 * dequeue, with dat_evd_wait()'s timeout in microseconds.
 *
 * Some cases check more than dapltest: after an abrupt IA close the EP
 * it held is gone (hwconn case3), freeing an EP flushes its receive
 * (endpoint case2). connmgt case2 is kdapltest's own: a connection to
 * a PSP of the same device (-s: the IA's own address), its CR queried.
 */

#include <linux/in.h>
#include <linux/ktime.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kdt.h"

#define KDT_FFT_QLEN	10	/* dapltest's DEFAULT_QUEUE_LEN */
#define KDT_FFT_BUF	1024	/* dapltest's BUFFSIZE */
#define KDT_FFT_CONN_US	(30ULL * USEC_PER_SEC)
#define KDT_FFT_PRIV	"kdapltest connmgt"

/* What dapltest's FFT_Connection_t holds, as far as a case asks for. */
struct kdt_fft_conn {
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async;
	DAT_PZ_HANDLE pz;
	struct kdt_evd send, recv, conn, creq;
	DAT_EP_HANDLE ep;
	DAT_PSP_HANDLE psp;
	u8 *buf;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_VADDR addr;
};

/* What kdt_fft_open() makes besides the IA and its PZ. */
#define KDT_FFT_EP	0x1	/* the three EVDs and an EP */
#define KDT_FFT_PSP	0x2	/* a CR EVD and a PSP on -n */
#define KDT_FFT_LMR	0x4	/* KDT_FFT_BUF bytes registered */
#define KDT_FFT_NOPZ	0x8	/* no PZ */

static bool kdt_fft_open(struct kdt_cases_run *cr, struct kdt_fft_conn *c,
			 unsigned int what)
{
	DAT_REGION_DESCRIPTION region;
	DAT_RETURN ret;
	DAT_VLEN len;

	memset(c, 0, sizeof(*c));
	ret = dat_ia_open(cr->run->ia_name, KDT_FFT_QLEN, &c->async, &c->ia);
	if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_ia_open")) {
		c->ia = DAT_HANDLE_NULL;
		return false;
	}
	if (!(what & KDT_FFT_NOPZ)) {
		ret = dat_pz_create(c->ia, &c->pz);
		if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_pz_create")) {
			c->pz = DAT_HANDLE_NULL;
			return false;
		}
	}
	if (what & KDT_FFT_EP) {
		ret = kdt_evd_kcreate(c->ia, KDT_FFT_QLEN, DAT_EVD_DTO_FLAG |
				      DAT_EVD_RMR_BIND_FLAG, &c->send);
		if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_evd_kcreate")) {
			c->send.h = DAT_HANDLE_NULL;
			return false;
		}
		ret = kdt_evd_kcreate(c->ia, KDT_FFT_QLEN, DAT_EVD_DTO_FLAG,
				      &c->recv);
		if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_evd_kcreate")) {
			c->recv.h = DAT_HANDLE_NULL;
			return false;
		}
		ret = kdt_evd_kcreate(c->ia, KDT_FFT_QLEN,
				      DAT_EVD_CONNECTION_FLAG, &c->conn);
		if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_evd_kcreate")) {
			c->conn.h = DAT_HANDLE_NULL;
			return false;
		}
		ret = dat_ep_create(c->ia, c->pz, c->recv.h, c->send.h,
				    c->conn.h, NULL, &c->ep);
		if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_ep_create")) {
			c->ep = DAT_HANDLE_NULL;
			return false;
		}
	}
	if (what & KDT_FFT_PSP) {
		ret = kdt_evd_kcreate(c->ia, KDT_FFT_QLEN, DAT_EVD_CR_FLAG,
				      &c->creq);
		if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_evd_kcreate")) {
			c->creq.h = DAT_HANDLE_NULL;
			return false;
		}
		ret = dat_psp_create(c->ia, cr->run->server_port, c->creq.h,
				     DAT_PSP_CONSUMER_FLAG, &c->psp);
		if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_psp_create")) {
			c->psp = DAT_HANDLE_NULL;
			return false;
		}
	}
	if (what & KDT_FFT_LMR) {
		c->buf = kzalloc(KDT_FFT_BUF, GFP_KERNEL);
		if (!c->buf) {
			kdt_case_fail(cr, DAT_SUCCESS, "no memory");
			return false;
		}
		region.for_va = c->buf;
		ret = dat_lmr_kcreate(c->ia, DAT_MEM_TYPE_VIRTUAL, region,
				      KDT_FFT_BUF, c->pz, DAT_MEM_PRIV_ALL_FLAG,
				      DAT_VA_TYPE_VA,
				      DAT_MEM_OPTIMIZE_DONT_CARE, &c->lmr,
				      &c->lctx, NULL, &len, &c->addr);
		if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_lmr_kcreate")) {
			c->lmr = DAT_HANDLE_NULL;
			return false;
		}
	}
	return true;
}

static void kdt_fft_free1(struct kdt_cases_run *cr, DAT_RETURN ret,
			  const char *what)
{
	kdt_case_expect(cr, ret, DAT_SUCCESS, what);
}

/* Free what @c holds in the right order; every free must succeed. */
static void kdt_fft_close(struct kdt_cases_run *cr, struct kdt_fft_conn *c)
{
	if (c->psp)
		kdt_fft_free1(cr, dat_psp_free(c->psp), "dat_psp_free");
	if (c->ep)
		kdt_fft_free1(cr, dat_ep_free(c->ep), "dat_ep_free");
	if (c->lmr)
		kdt_fft_free1(cr, dat_lmr_free(c->lmr), "dat_lmr_free");
	kfree(c->buf);
	if (c->creq.h)
		kdt_fft_free1(cr, dat_evd_free(c->creq.h), "dat_evd_free");
	if (c->conn.h)
		kdt_fft_free1(cr, dat_evd_free(c->conn.h), "dat_evd_free");
	if (c->recv.h)
		kdt_fft_free1(cr, dat_evd_free(c->recv.h), "dat_evd_free");
	if (c->send.h)
		kdt_fft_free1(cr, dat_evd_free(c->send.h), "dat_evd_free");
	if (c->pz)
		kdt_fft_free1(cr, dat_pz_free(c->pz), "dat_pz_free");
	if (c->ia)
		kdt_fft_free1(cr, dat_ia_close(c->ia, DAT_CLOSE_ABRUPT_FLAG),
			      "dat_ia_close");
	memset(c, 0, sizeof(*c));
}

/* ------------------------------------------------------------------ */
/* hwconn                                                              */
/* ------------------------------------------------------------------ */

static void kdt_hwconn0(struct kdt_cases_run *cr)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia;
	DAT_RETURN ret;

	ret = dat_ia_open(cr->run->ia_name, KDT_FFT_QLEN, &async, &ia);
	if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_ia_open"))
		return;
	ret = dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
	kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_ia_close");
}

static void kdt_hwconn1(struct kdt_cases_run *cr)
{
	/* a number, a letter, letters, letter_number, number_letter */
	static char *const names[] = { "40", "x", "xsdf", "x34", "34df" };
	char what[48];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
		DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
		DAT_RETURN ret;

		ret = dat_ia_open(names[i], KDT_FFT_QLEN, &async, &ia);
		snprintf(what, sizeof(what), "dat_ia_open(\"%s\")", names[i]);
		if (!kdt_case_expect(cr, ret, DAT_PROVIDER_NOT_FOUND, what)) {
			if (ret == DAT_SUCCESS)
				dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
			return;
		}
	}
}

static void kdt_hwconn2(struct kdt_cases_run *cr)
{
	DAT_RETURN ret = dat_ia_close(DAT_HANDLE_NULL, DAT_CLOSE_ABRUPT_FLAG);

	kdt_case_expect(cr, ret, DAT_INVALID_HANDLE, "dat_ia_close(NULL)");
}

static void kdt_hwconn3(struct kdt_cases_run *cr)
{
	DAT_EP_PARAM *param;
	struct kdt_fft_conn c;
	DAT_EP_HANDLE ep;
	DAT_RETURN ret;

	if (!kdt_fft_open(cr, &c, KDT_FFT_EP)) {
		kdt_fft_close(cr, &c);
		return;
	}
	ep = c.ep;
	ret = dat_ia_close(c.ia, DAT_CLOSE_ABRUPT_FLAG);
	if (!kdt_case_expect(cr, ret, DAT_SUCCESS,
			     "dat_ia_close (abrupt) with an EP left")) {
		kdt_fft_close(cr, &c);
		return;
	}
	/* the close took everything with it; unlike uDAPL nothing leaks */
	param = kzalloc(sizeof(*param), GFP_KERNEL);
	if (param) {
		ret = dat_ep_query(ep, DAT_EP_FIELD_ALL, param);
		kdt_case_expect(cr, ret, DAT_INVALID_HANDLE,
				"dat_ep_query of the EP after the close");
		kfree(param);
	} else {
		kdt_case_fail(cr, DAT_SUCCESS, "no memory");
	}
}

/* ------------------------------------------------------------------ */
/* endpoint                                                            */
/* ------------------------------------------------------------------ */

static void kdt_endpoint_generic(struct kdt_cases_run *cr, bool pz_early)
{
	struct kdt_fft_conn c;
	DAT_PZ_HANDLE pz;
	DAT_RETURN ret;

	if (!kdt_fft_open(cr, &c, 0))
		goto out;
	pz = c.pz;
	if (pz_early) {
		/* @pz stays as the consumer had it: stale */
		ret = dat_pz_free(c.pz);
		c.pz = DAT_HANDLE_NULL;
		if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_pz_free"))
			goto out;
	}
	ret = kdt_evd_kcreate(c.ia, KDT_FFT_QLEN, DAT_EVD_DTO_FLAG |
			      DAT_EVD_RMR_BIND_FLAG, &c.send);
	if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_evd_kcreate (send)")) {
		c.send.h = DAT_HANDLE_NULL;
		goto out;
	}
	ret = kdt_evd_kcreate(c.ia, KDT_FFT_QLEN, DAT_EVD_DTO_FLAG, &c.recv);
	if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_evd_kcreate (recv)")) {
		c.recv.h = DAT_HANDLE_NULL;
		goto out;
	}
	ret = kdt_evd_kcreate(c.ia, KDT_FFT_QLEN, DAT_EVD_CONNECTION_FLAG,
			      &c.conn);
	if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_evd_kcreate (conn)")) {
		c.conn.h = DAT_HANDLE_NULL;
		goto out;
	}
	ret = dat_ep_create(c.ia, pz, c.recv.h, c.send.h, c.conn.h, NULL,
			    &c.ep);
	if (ret != DAT_SUCCESS)
		c.ep = DAT_HANDLE_NULL;
	kdt_case_expect(cr, ret, pz_early ? DAT_INVALID_HANDLE : DAT_SUCCESS,
			pz_early ? "dat_ep_create with a freed PZ" :
				   "dat_ep_create");
out:
	kdt_fft_close(cr, &c);
}

static void kdt_endpoint0(struct kdt_cases_run *cr)
{
	kdt_endpoint_generic(cr, false);
}

static void kdt_endpoint1(struct kdt_cases_run *cr)
{
	kdt_endpoint_generic(cr, true);
}

static void kdt_endpoint2(struct kdt_cases_run *cr)
{
	DAT_LMR_TRIPLET t;
	DAT_DTO_COOKIE ck = { .as_64 = 0x6b6474 };
	struct kdt_fft_conn c;
	DAT_RETURN ret;
	DAT_EVENT ev;

	if (!kdt_fft_open(cr, &c, KDT_FFT_EP | KDT_FFT_LMR))
		goto out;
	t.lmr_context = c.lctx;
	t.virtual_address = c.addr;
	t.segment_length = KDT_FFT_BUF;
	ret = dat_ep_post_recv(c.ep, 1, &t, ck, DAT_COMPLETION_DEFAULT_FLAG);
	if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_ep_post_recv"))
		goto out;
	ret = dat_ep_free(c.ep);
	c.ep = DAT_HANDLE_NULL;
	if (!kdt_case_expect(cr, ret, DAT_SUCCESS,
			     "dat_ep_free with a receive posted"))
		goto out;
	/* kDAPL flushes the receive to the EVD before the EP goes */
	ret = kdt_evd_wait_us(&c.recv, 5 * USEC_PER_SEC, &ev);
	if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "the flushed receive"))
		goto out;
	if (ev.event_number != DAT_DTO_COMPLETION_EVENT ||
	    ev.event_data.dto_completion_event_data.status !=
	    DAT_DTO_ERR_FLUSHED ||
	    ev.event_data.dto_completion_event_data.user_cookie.as_64 !=
	    ck.as_64)
		kdt_case_fail(cr, DAT_SUCCESS, "event %#x status %d cookie %#llx: not ours flushed",
			      ev.event_number,
			      ev.event_data.dto_completion_event_data.status,
			      ev.event_data.dto_completion_event_data.user_cookie.as_64);
	ret = dat_evd_dequeue(c.recv.h, &ev);
	kdt_case_expect(cr, ret, DAT_QUEUE_EMPTY, "dat_evd_dequeue after it");
out:
	kdt_fft_close(cr, &c);
}

/* ------------------------------------------------------------------ */
/* pz                                                                  */
/* ------------------------------------------------------------------ */

static void kdt_pz0(struct kdt_cases_run *cr)
{
	struct kdt_fft_conn c;

	kdt_fft_open(cr, &c, 0);
	kdt_fft_close(cr, &c);
}

/* Freeing a PZ an EP (@what KDT_FFT_EP) or an LMR uses: refused. */
static void kdt_pz_in_use(struct kdt_cases_run *cr, unsigned int what)
{
	struct kdt_fft_conn c;
	DAT_RETURN ret;

	if (kdt_fft_open(cr, &c, what)) {
		ret = dat_pz_free(c.pz);
		if (ret == DAT_SUCCESS)
			c.pz = DAT_HANDLE_NULL;
		kdt_case_expect(cr, ret, DAT_ERROR(DAT_INVALID_STATE,
						   DAT_INVALID_STATE_PZ_IN_USE),
				what == KDT_FFT_EP ? "dat_pz_free with an EP" :
						     "dat_pz_free with an LMR");
	}
	kdt_fft_close(cr, &c);
}

static void kdt_pz1(struct kdt_cases_run *cr)
{
	kdt_pz_in_use(cr, KDT_FFT_EP);
}

static void kdt_pz2(struct kdt_cases_run *cr)
{
	kdt_pz_in_use(cr, KDT_FFT_LMR);
}

/* ------------------------------------------------------------------ */
/* mem                                                                 */
/* ------------------------------------------------------------------ */

enum { MEM_ONCE, MEM_TWICE, MEM_LEN0, MEM_NOPZ, MEM_FREE_NULL };

static void kdt_mem_generic(struct kdt_cases_run *cr, int how)
{
	DAT_REGION_DESCRIPTION region;
	DAT_LMR_HANDLE lmr = DAT_HANDLE_NULL;
	DAT_LMR_CONTEXT lctx;
	struct kdt_fft_conn c;
	DAT_VADDR addr;
	DAT_RETURN ret;
	DAT_VLEN len;
	u8 *buf = NULL;
	int round;

	if (!kdt_fft_open(cr, &c, KDT_FFT_EP))
		goto out;
	if (how == MEM_FREE_NULL) {
		ret = dat_lmr_free(DAT_HANDLE_NULL);
		kdt_case_expect(cr, ret, DAT_INVALID_HANDLE,
				"dat_lmr_free(NULL)");
		goto out;
	}
	buf = kzalloc(KDT_FFT_BUF, GFP_KERNEL);
	if (!buf) {
		kdt_case_fail(cr, DAT_SUCCESS, "no memory");
		goto out;
	}
	region.for_va = buf;
	for (round = 0; round < (how == MEM_TWICE ? 2 : 1); round++) {
		ret = dat_lmr_kcreate(c.ia, DAT_MEM_TYPE_VIRTUAL, region,
				      how == MEM_LEN0 ? 0 : KDT_FFT_BUF,
				      how == MEM_NOPZ ? DAT_HANDLE_NULL : c.pz,
				      DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA,
				      DAT_MEM_OPTIMIZE_DONT_CARE, &lmr, &lctx,
				      NULL, &len, &addr);
		if (ret != DAT_SUCCESS)
			lmr = DAT_HANDLE_NULL;
		if (how == MEM_LEN0) {
			kdt_case_expect(cr, ret,
					DAT_ERROR(DAT_INVALID_PARAMETER,
						  DAT_INVALID_ARG4),
					"dat_lmr_kcreate of 0 bytes");
			break;
		}
		if (how == MEM_NOPZ) {
			kdt_case_expect(cr, ret,
					DAT_ERROR(DAT_INVALID_HANDLE,
						  DAT_INVALID_HANDLE_PZ),
					"dat_lmr_kcreate without a PZ");
			break;
		}
		if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_lmr_kcreate"))
			break;
		if (len != KDT_FFT_BUF || addr != (DAT_VADDR)(uintptr_t)buf)
			kdt_case_fail(cr, ret, "registered %llu bytes at %#llx",
				      (unsigned long long)len,
				      (unsigned long long)addr);
		if (how == MEM_TWICE && !round) {
			ret = dat_lmr_free(lmr);
			lmr = DAT_HANDLE_NULL;
			if (!kdt_case_expect(cr, ret, DAT_SUCCESS,
					     "dat_lmr_free"))
				break;
		}
	}
	if (lmr)
		kdt_fft_free1(cr, dat_lmr_free(lmr), "dat_lmr_free");
out:
	kfree(buf);
	kdt_fft_close(cr, &c);
}

static void kdt_mem0(struct kdt_cases_run *cr)
{
	kdt_mem_generic(cr, MEM_ONCE);
}

static void kdt_mem1(struct kdt_cases_run *cr)
{
	kdt_mem_generic(cr, MEM_TWICE);
}

static void kdt_mem2(struct kdt_cases_run *cr)
{
	kdt_mem_generic(cr, MEM_LEN0);
}

static void kdt_mem3(struct kdt_cases_run *cr)
{
	kdt_mem_generic(cr, MEM_NOPZ);
}

static void kdt_mem4(struct kdt_cases_run *cr)
{
	kdt_mem_generic(cr, MEM_FREE_NULL);
}

/* ------------------------------------------------------------------ */
/* connmgt                                                             */
/* ------------------------------------------------------------------ */

/* A server's PSP without clients: a wait of @us times out, on time. */
static void kdt_connmgt_timeout(struct kdt_cases_run *cr, u64 us)
{
	struct kdt_fft_conn c;
	DAT_RETURN ret;
	DAT_EVENT ev;
	u64 t0, el;

	if (kdt_fft_open(cr, &c, KDT_FFT_EP | KDT_FFT_PSP)) {
		t0 = ktime_get_ns();
		ret = kdt_evd_wait_us(&c.creq, us, &ev);
		el = div_u64(ktime_get_ns() - t0, NSEC_PER_USEC);
		if (kdt_case_expect(cr, ret, DAT_TIMEOUT_EXPIRED,
				    "waiting on the CR EVD")) {
			if (el < us || el > us + 2 * USEC_PER_SEC)
				kdt_case_fail(cr, ret, "a wait of %llu us took %llu us",
					      us, el);
			else
				kdt_case_note(cr, "a wait of %llu us took %llu us",
					      us, el);
		}
	}
	kdt_fft_close(cr, &c);
}

static void kdt_connmgt0(struct kdt_cases_run *cr)
{
	kdt_connmgt_timeout(cr, 10000);	/* dapltest's 10000 us */
}

static void kdt_connmgt1(struct kdt_cases_run *cr)
{
	kdt_connmgt_timeout(cr, 0);
}

/* Wait for connection event @want on @e. */
static bool kdt_connmgt_event(struct kdt_cases_run *cr, struct kdt_evd *e,
			      DAT_EVENT_NUMBER want, const char *what)
{
	DAT_RETURN ret;
	DAT_EVENT ev;

	ret = kdt_evd_wait_us(e, KDT_FFT_CONN_US, &ev);
	if (!kdt_case_expect(cr, ret, DAT_SUCCESS, what))
		return false;
	if (ev.event_number != want) {
		kdt_case_fail(cr, DAT_SUCCESS, "%s: event %#x, expected %#x",
			      what, ev.event_number, want);
		return false;
	}
	return true;
}

/*
 * kdapltest's own: a connection to a PSP of the same device, through
 * the IA's own address (-s), the CR queried and accepted, then a
 * graceful disconnect both sides see.
 */
static void kdt_connmgt2(struct kdt_cases_run *cr)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	static const char priv[] = KDT_FFT_PRIV;
	struct kdt_fft_conn *srv, *cli;
	DAT_CR_HANDLE crh;
	DAT_CR_PARAM crp;
	DAT_RETURN ret;
	DAT_EVENT ev;

	if (!cr->run->server_addr) {
		kdt_case_skip(cr, "needs -s, the address of the IA itself");
		return;
	}
	sin.sin_addr.s_addr = cr->run->server_addr;
	/* two of them are too big for the stack */
	srv = kzalloc(sizeof(*srv), GFP_KERNEL);
	cli = kzalloc(sizeof(*cli), GFP_KERNEL);
	if (!srv || !cli) {
		kdt_case_fail(cr, DAT_SUCCESS, "no memory");
		goto nomem;
	}
	if (!kdt_fft_open(cr, srv, KDT_FFT_EP | KDT_FFT_PSP) ||
	    !kdt_fft_open(cr, cli, KDT_FFT_EP))
		goto out;
	ret = dat_ep_connect(cli->ep, (struct sockaddr *)&sin,
			     cr->run->server_port, KDT_FFT_CONN_US,
			     sizeof(priv), (DAT_PVOID)priv,
			     DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_ep_connect"))
		goto out;
	ret = kdt_evd_wait_us(&srv->creq, KDT_FFT_CONN_US, &ev);
	if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "the connection request"))
		goto out;
	if (ev.event_number != DAT_CONNECTION_REQUEST_EVENT) {
		kdt_case_fail(cr, DAT_SUCCESS, "event %#x, expected a connection request",
			      ev.event_number);
		goto out;
	}
	crh = ev.event_data.cr_arrival_event_data.cr_handle;
	memset(&crp, 0, sizeof(crp));
	ret = dat_cr_query(crh, DAT_CR_FIELD_ALL, &crp);
	if (kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_cr_query")) {
		const struct sockaddr_in *ra =
			(const struct sockaddr_in *)crp.remote_ia_address_ptr;

		if (crp.private_data_size < (DAT_COUNT)sizeof(priv) ||
		    !crp.private_data ||
		    memcmp(crp.private_data, priv, sizeof(priv)))
			kdt_case_fail(cr, ret, "dat_cr_query: %d bytes of private data",
				      crp.private_data_size);
		else if (!ra || ra->sin_family != AF_INET ||
			 ra->sin_addr.s_addr != sin.sin_addr.s_addr)
			kdt_case_fail(cr, ret, "dat_cr_query: remote address not %pI4",
				      &sin.sin_addr);
	}
	ret = dat_cr_accept(crh, srv->ep, 0, NULL);
	if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_cr_accept"))
		goto out;
	if (!kdt_connmgt_event(cr, &srv->conn, DAT_CONNECTION_EVENT_ESTABLISHED,
			       "server: established") ||
	    !kdt_connmgt_event(cr, &cli->conn, DAT_CONNECTION_EVENT_ESTABLISHED,
			       "client: established"))
		goto out;
	ret = dat_ep_disconnect(cli->ep, DAT_CLOSE_GRACEFUL_FLAG);
	if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_ep_disconnect"))
		goto out;
	if (kdt_connmgt_event(cr, &cli->conn, DAT_CONNECTION_EVENT_DISCONNECTED,
			      "client: disconnected") &&
	    kdt_connmgt_event(cr, &srv->conn, DAT_CONNECTION_EVENT_DISCONNECTED,
			      "server: disconnected"))
		kdt_case_note(cr, "connected to %pI4:%u and back",
			      &sin.sin_addr, cr->run->server_port);
out:
	kdt_fft_close(cr, cli);
	kdt_fft_close(cr, srv);
nomem:
	kfree(cli);
	kfree(srv);
}

/* ------------------------------------------------------------------ */
/* queryinfo                                                           */
/* ------------------------------------------------------------------ */

enum kdt_query { Q_IA, Q_CNO, Q_EVD, Q_PSP, Q_RSP, Q_CR, Q_EP, Q_PZ, Q_LMR,
		 Q_RMR };

/* The parameters of every query, big for a kernel stack. */
union kdt_query_param {
	struct {
		DAT_IA_ATTR ia;
		DAT_PROVIDER_ATTR prov;
	};
	DAT_EVD_PARAM evd;
	DAT_PSP_PARAM psp;
	DAT_RSP_PARAM rsp;
	DAT_EP_PARAM ep;
	DAT_PZ_PARAM pz;
	DAT_LMR_PARAM lmr;
	DAT_RMR_PARAM rmr;
};

static void kdt_query_basic(struct kdt_cases_run *cr, enum kdt_query obj,
			    DAT_RETURN want)
{
	DAT_RSP_HANDLE rsp = DAT_HANDLE_NULL;
	DAT_RMR_HANDLE rmr = DAT_HANDLE_NULL;
	union kdt_query_param *p;
	unsigned int what = 0;
	struct kdt_fft_conn c;
	DAT_RETURN ret;
	bool bad_handle = DAT_GET_TYPE(want) == DAT_INVALID_HANDLE;
	bool bad_param = DAT_GET_TYPE(want) == DAT_INVALID_PARAMETER;

	memset(&c, 0, sizeof(c));
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		kdt_case_fail(cr, DAT_SUCCESS, "no memory");
		return;
	}
	if (obj == Q_EP || obj == Q_RSP)
		what |= KDT_FFT_EP;
	if (obj == Q_PSP)
		what |= KDT_FFT_PSP;
	if (obj == Q_LMR)
		what |= KDT_FFT_LMR;
	if (obj == Q_IA || obj == Q_PSP)
		what |= KDT_FFT_NOPZ;	/* as dapltest: no PZ for these */
	if (!kdt_fft_open(cr, &c, what))
		goto out;

	switch (obj) {
	case Q_IA:
		if (bad_param)	/* attributes asked for, nowhere to put them */
			ret = dat_ia_query(c.ia, NULL, DAT_IA_FIELD_ALL, NULL,
					   DAT_PROVIDER_FIELD_ALL, &p->prov);
		else
			ret = dat_ia_query(bad_handle ? c.async : c.ia, NULL,
					   DAT_IA_FIELD_ALL, &p->ia,
					   DAT_PROVIDER_FIELD_ALL, &p->prov);
		if (kdt_case_expect(cr, ret, want, "dat_ia_query") &&
		    want == DAT_SUCCESS && (p->ia.max_eps <= 0 ||
					    p->ia.max_pzs <= 0))
			kdt_case_fail(cr, ret, "dat_ia_query: max_eps %d, max_pzs %d",
				      p->ia.max_eps, p->ia.max_pzs);
		break;
	case Q_EVD:
		/* the IA's asynchronous EVD, as dapltest */
		if (bad_param)
			ret = dat_evd_query(c.async, DAT_EVD_FIELD_ALL, NULL);
		else
			ret = dat_evd_query(bad_handle ? c.ia : c.async,
					    DAT_EVD_FIELD_ALL, &p->evd);
		kdt_case_expect(cr, ret, want, "dat_evd_query");
		break;
	case Q_PSP:
		if (bad_param)
			ret = dat_psp_query(c.psp, DAT_PSP_FIELD_ALL, NULL);
		else
			ret = dat_psp_query(bad_handle ? c.creq.h : c.psp,
					    DAT_PSP_FIELD_ALL, &p->psp);
		if (kdt_case_expect(cr, ret, want, "dat_psp_query") &&
		    want == DAT_SUCCESS &&
		    (p->psp.conn_qual != cr->run->server_port ||
		     p->psp.ia_handle != c.ia || p->psp.evd_handle != c.creq.h))
			kdt_case_fail(cr, ret, "dat_psp_query: port %llu, IA or EVD not ours",
				      (unsigned long long)p->psp.conn_qual);
		break;
	case Q_RSP:
		ret = kdt_evd_kcreate(c.ia, KDT_FFT_QLEN, DAT_EVD_CR_FLAG,
				      &c.creq);
		if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_evd_kcreate")) {
			c.creq.h = DAT_HANDLE_NULL;
			break;
		}
		ret = dat_rsp_create(c.ia, cr->run->server_port, c.ep, c.creq.h,
				     &rsp);
		if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_rsp_create")) {
			rsp = DAT_HANDLE_NULL;
			break;
		}
		ret = dat_rsp_query(rsp, DAT_RSP_FIELD_ALL, &p->rsp);
		if (kdt_case_expect(cr, ret, want, "dat_rsp_query") &&
		    (p->rsp.ep_handle != c.ep ||
		     p->rsp.conn_qual != cr->run->server_port))
			kdt_case_fail(cr, ret, "dat_rsp_query: port %llu, EP not ours",
				      (unsigned long long)p->rsp.conn_qual);
		break;
	case Q_EP:
		ret = dat_ep_query(c.ep, DAT_EP_FIELD_ALL, &p->ep);
		if (kdt_case_expect(cr, ret, want, "dat_ep_query") &&
		    (p->ep.ep_state != DAT_EP_STATE_UNCONNECTED ||
		     p->ep.pz_handle != c.pz || p->ep.recv_evd_handle != c.recv.h))
			kdt_case_fail(cr, ret, "dat_ep_query: state %d, PZ or EVD not ours",
				      p->ep.ep_state);
		break;
	case Q_PZ:
		ret = dat_pz_query(c.pz, DAT_PZ_FIELD_ALL, &p->pz);
		if (kdt_case_expect(cr, ret, want, "dat_pz_query") &&
		    p->pz.ia_handle != c.ia)
			kdt_case_fail(cr, ret, "dat_pz_query: not our IA");
		break;
	case Q_LMR:
		ret = dat_lmr_query(c.lmr, DAT_LMR_FIELD_ALL, &p->lmr);
		if (kdt_case_expect(cr, ret, want, "dat_lmr_query") &&
		    (p->lmr.length != KDT_FFT_BUF || p->lmr.pz_handle != c.pz))
			kdt_case_fail(cr, ret, "dat_lmr_query: length %llu, PZ not ours",
				      (unsigned long long)p->lmr.length);
		break;
	case Q_RMR:
		/* kdapl/rmr.c: no kernel memory windows, never an RMR */
		ret = dat_rmr_create(c.pz, &rmr);
		if (ret == DAT_SUCCESS) {
			kdt_case_fail(cr, ret, "dat_rmr_create made an RMR");
			break;
		}
		rmr = DAT_HANDLE_NULL;
		if (!kdt_case_expect(cr, ret, DAT_MODEL_NOT_SUPPORTED,
				     "dat_rmr_create"))
			break;
		ret = dat_rmr_query(rmr, DAT_RMR_FIELD_ALL -
				    DAT_RMR_FIELD_LMR_TRIPLET, &p->rmr);
		if (kdt_case_expect(cr, ret, DAT_INVALID_HANDLE,
				    "dat_rmr_query without an RMR"))
			kdt_case_note(cr, "no RMRs in kDAPL (kdapl/rmr.c), as documented");
		break;
	case Q_CNO:
	case Q_CR:
		break;
	}
out:
	if (rmr)
		kdt_fft_free1(cr, dat_rmr_free(rmr), "dat_rmr_free");
	if (rsp)
		kdt_fft_free1(cr, dat_rsp_free(rsp), "dat_rsp_free");
	kdt_fft_close(cr, &c);
	kfree(p);
}

#define KDT_QUERY_CASE(n, obj, want)					\
static void kdt_query##n(struct kdt_cases_run *cr)			\
{									\
	kdt_query_basic(cr, obj, want);					\
}

KDT_QUERY_CASE(0, Q_IA, DAT_SUCCESS)
KDT_QUERY_CASE(2, Q_EVD, DAT_SUCCESS)
KDT_QUERY_CASE(3, Q_PSP, DAT_SUCCESS)
KDT_QUERY_CASE(4, Q_RSP, DAT_SUCCESS)
KDT_QUERY_CASE(6, Q_EP, DAT_SUCCESS)
KDT_QUERY_CASE(7, Q_PZ, DAT_SUCCESS)
KDT_QUERY_CASE(8, Q_LMR, DAT_SUCCESS)
KDT_QUERY_CASE(9, Q_RMR, DAT_MODEL_NOT_SUPPORTED)
KDT_QUERY_CASE(10, Q_IA, DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4))
KDT_QUERY_CASE(11, Q_IA, DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA))
KDT_QUERY_CASE(12, Q_EVD, DAT_INVALID_PARAMETER)
KDT_QUERY_CASE(13, Q_EVD, DAT_INVALID_HANDLE)
KDT_QUERY_CASE(14, Q_PSP, DAT_INVALID_PARAMETER)
KDT_QUERY_CASE(15, Q_PSP, DAT_INVALID_HANDLE)

static void kdt_query1(struct kdt_cases_run *cr)
{
	kdt_case_skip(cr, "kDAPL has no CNOs (DAT 2.0 kDAPL: upcalls instead)");
}

static void kdt_query5(struct kdt_cases_run *cr)
{
	kdt_case_skip(cr, "as in dapltest, dat_cr_query is tested by connmgt (case2 here)");
}

/* ------------------------------------------------------------------ */
/* The features                                                        */
/* ------------------------------------------------------------------ */

struct kdt_fft_case {
	void (*fn)(struct kdt_cases_run *cr);
	const char *desc;
};

static const struct kdt_fft_case kdt_hwconn_cases[] = {
	{ kdt_hwconn0,
	  "Test if we can normally Open NIC and then close it" },
	{ kdt_hwconn1,
	  "try to open NIC with incorrect device name" },
	{ kdt_hwconn2,
	  "Try to close nic with Nic handle is null (NIC not open)" },
	{ kdt_hwconn3,
	  "Test if we can close NIC when the created endpoint has not been destroyed" },
};

static const struct kdt_fft_case kdt_endpoint_cases[] = {
	{ kdt_endpoint0,
	  "Test if we can normally create endpoint and destroy it" },
	{ kdt_endpoint1,
	  "try to create endpoint with pz already destroyed" },
	{ kdt_endpoint2,
	  "try to destroy ep with descriptor still in working queue" },
};

static const struct kdt_fft_case kdt_pz_cases[] = {
	{ kdt_pz0,
	  "Test if we can normally create pz and destroy it" },
	{ kdt_pz1,
	  "try to destroy pz with vi still associated with it" },
	{ kdt_pz2,
	  "try to destroy pz with registered memory still associated with it" },
};

static const struct kdt_fft_case kdt_mem_cases[] = {
	{ kdt_mem0,
	  "Test if we can register typical size of memory then deregister it" },
	{ kdt_mem1,
	  "Test if we can register typical size of memory, deregister, then register it again" },
	{ kdt_mem2,
	  "Try to register memory with memory size 0" },
	{ kdt_mem3,
	  "Try to register memory with null pz" },
	{ kdt_mem4,
	  "Try to deregister memory with null lmr_handle" },
};

static const struct kdt_fft_case kdt_connmgt_cases[] = {
	{ kdt_connmgt0,
	  "Ensure time in dat_evd_wait works correctly" },
	{ kdt_connmgt1,
	  "Attempt to use timeout of 0 in dat_evd_wait" },
	{ kdt_connmgt2,
	  "Connect to a PSP of the same IA, query the CR, accept, disconnect" },
};

static const struct kdt_fft_case kdt_query_cases[] = {
	{ kdt_query0,
	  "Verify IA Querying information is successful using DAT_IA_QUERY" },
	{ kdt_query1,
	  "Verify CNO Querying information is successful using DAT_CNO_QUERY" },
	{ kdt_query2,
	  "Verify EVD Querying information is successful using DAT_EVD_QUERY" },
	{ kdt_query3,
	  "Verify PSP Querying information is successful using DAT_PSP_QUERY" },
	{ kdt_query4,
	  "Verify RSP Querying information is successful using DAT_RSP_QUERY" },
	{ kdt_query5,
	  "Verify CR Querying information is successful using DAT_CR_QUERY" },
	{ kdt_query6,
	  "Verify EP Querying information is successful using DAT_EP_QUERY" },
	{ kdt_query7,
	  "Verify PZ Querying information is successful using DAT_PZ_QUERY" },
	{ kdt_query8,
	  "Verify LMR Querying information is successful using DAT_LMR_QUERY" },
	{ kdt_query9,
	  "Verify RMR Querying information is successful using DAT_RMR_QUERY" },
	{ kdt_query10,
	  "Verify IA Querying fails with DAT_INVALID_PARAMETER when passing a bad parameter" },
	{ kdt_query11,
	  "Verify IA Querying fails with DAT_INVALID_HANDLE when passing an invalid handle" },
	{ kdt_query12,
	  "Verify EVD Querying fails with DAT_INVALID_PARAMETER when passing a bad parameter" },
	{ kdt_query13,
	  "Verify EVD Querying fails with DAT_INVALID_HANDLE when passing an invalid handle" },
	{ kdt_query14,
	  "Verify PSP Querying fails with DAT_INVALID_PARAMETER when passing a bad parameter" },
	{ kdt_query15,
	  "Verify PSP Querying fails with DAT_INVALID_HANDLE when passing an invalid handle" },
};

static const struct {
	const struct kdt_fft_case *cases;
	unsigned int num;
} kdt_features[KDT_FFT_NUM] = {
	[KDT_FFT_HWCONN] = { kdt_hwconn_cases, ARRAY_SIZE(kdt_hwconn_cases) },
	[KDT_FFT_ENDPOINT] = { kdt_endpoint_cases,
			       ARRAY_SIZE(kdt_endpoint_cases) },
	[KDT_FFT_PZ] = { kdt_pz_cases, ARRAY_SIZE(kdt_pz_cases) },
	[KDT_FFT_MEM] = { kdt_mem_cases, ARRAY_SIZE(kdt_mem_cases) },
	[KDT_FFT_CONNMGT] = { kdt_connmgt_cases,
			      ARRAY_SIZE(kdt_connmgt_cases) },
	[KDT_FFT_QUERYINFO] = { kdt_query_cases, ARRAY_SIZE(kdt_query_cases) },
};

/**
 * kdt_fft_run() - dapltest's function feature test, one feature
 * @cr: the run: kdt_cases.feature checked; .select picks cases
 *
 * Context: process context (the caller's ioctl); sleeps.
 */
void kdt_fft_run(struct kdt_cases_run *cr)
{
	const struct kdt_fft_case *cases = kdt_features[cr->c->feature].cases;
	unsigned int num = kdt_features[cr->c->feature].num, i;
	char name[16];

	if (cr->c->select & ~(BIT(num) - 1)) {
		cr->run->result.status = -EINVAL;
		return;
	}
	for (i = 0; i < num; i++) {
		if (!kdt_case_wanted(cr, i))
			continue;
		snprintf(name, sizeof(name), "case%u", i);
		kdt_case_begin(cr, i, name, cases[i].desc);
		cases[i].fn(cr);
		kdt_case_end(cr);
		if (fatal_signal_pending(current))
			break;
	}
}
