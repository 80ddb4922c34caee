// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_demo: a small in-kernel DAT consumer for `make demo`.
 *
 * On load it opens two IAs (module parameters ia_a and ia_b, both siwA by
 * default: see Documentation/kdapl.rst, "Namespaces and siw"; kw1 and kw2
 * cross between the two test hosts over our RNIC), listens on
 * side B with a PSP, connects side A, and runs an echo exchange: side B
 * echoes every message from inside its DTO upcall, side A sends @count
 * messages and checks each echo byte for byte, then RDMA-writes a buffer
 * into B's memory and reads it back. The connection stays up while the
 * module is loaded, so debugfs shows the live endpoints; unloading
 * disconnects gracefully and closes both IAs.
 *
 * Uses only the public DAT API of kdapl.ko. The result is printed to the
 * kernel log ("kdapl_demo: ... ok"); a failure makes the load fail.
 */

#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <dat2/kdat.h>

static char *ia_a = "siwA";
module_param(ia_a, charp, 0444);
MODULE_PARM_DESC(ia_a, "IA (RDMA device) of the active side");
static char *ia_b = "siwA";
module_param(ia_b, charp, 0444);
MODULE_PARM_DESC(ia_b, "IA (RDMA device) of the passive side");
static char *addr_b = "192.0.2.1";
module_param(addr_b, charp, 0444);
MODULE_PARM_DESC(addr_b, "IPv4 address of the passive side's IA");
static ushort port = 7900;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "connection qualifier (TCP port)");
static uint count = 100;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "messages to echo");

#define MSG_LEN		512
#define RDMA_LEN	65536
#define WAIT_MS		10000

struct side {
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE dto, conn, cr;
	DAT_EP_HANDLE ep;
	u8 *buf;			/* MSG_LEN + RDMA_LEN */
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VADDR addr;
};

static struct side a, b;
static DAT_PSP_HANDLE psp;
static atomic_t echoed;

static DAT_LMR_TRIPLET trip(struct side *s, size_t off, size_t len)
{
	DAT_LMR_TRIPLET t = {
		.lmr_context = s->lctx,
		.virtual_address = s->addr + off,
		.segment_length = len,
	};
	return t;
}

static DAT_RETURN wait_ev(DAT_EVD_HANDLE evd, DAT_EVENT *ev)
{
	DAT_RETURN ret;
	int ms;

	for (ms = 0; ms < WAIT_MS; ms += 2) {
		ret = dat_evd_dequeue(evd, ev);
		if (ret != DAT_ERROR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE))
			return ret;
		usleep_range(2000, 3000);
	}
	return ret;
}

static int expect(DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER num, DAT_EVENT *ev)
{
	DAT_EVENT dummy;

	if (!ev)
		ev = &dummy;
	if (wait_ev(evd, ev) != DAT_SUCCESS) {
		pr_err("kdapl_demo: no event %#x\n", num);
		return -ETIMEDOUT;
	}
	if (ev->event_number != num) {
		pr_err("kdapl_demo: event %#x, want %#x\n", ev->event_number,
		       num);
		return -EPROTO;
	}
	if (num == DAT_DTO_COMPLETION_EVENT &&
	    ev->event_data.dto_completion_event_data.status != DAT_DTO_SUCCESS) {
		pr_err("kdapl_demo: DTO status %d\n",
		       ev->event_data.dto_completion_event_data.status);
		return -EIO;
	}
	return 0;
}

/* Side B: echo each received message back, from the upcall. */
static void echo_upcall(DAT_PVOID data, const DAT_EVENT *ev, DAT_BOOLEAN more)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d =
		&ev->event_data.dto_completion_event_data;
	DAT_DTO_COOKIE ck = { .as_64 = 0 };
	DAT_LMR_TRIPLET t;

	if (ev->event_number != DAT_DTO_COMPLETION_EVENT ||
	    d->operation != DAT_DTO_RECEIVE || d->status != DAT_DTO_SUCCESS)
		return;
	t = trip(&b, 0, d->transfered_length);
	if (dat_ep_post_send(b.ep, 1, &t, ck, 0) != DAT_SUCCESS)
		return;
	t = trip(&b, 0, MSG_LEN);
	if (dat_ep_post_recv(b.ep, 1, &t, ck, 0) == DAT_SUCCESS)
		atomic_inc(&echoed);
}

static int side_open(struct side *s, char *name, bool echo)
{
	DAT_UPCALL_OBJECT up = { NULL, echo_upcall };
	DAT_REGION_DESCRIPTION r;
	DAT_VLEN len;

	s->buf = kzalloc(MSG_LEN + RDMA_LEN, GFP_KERNEL);
	if (!s->buf)
		return -ENOMEM;
	s->async = DAT_HANDLE_NULL;
	r.for_va = s->buf;
	if (dat_ia_open(name, 16, &s->async, &s->ia) != DAT_SUCCESS ||
	    dat_pz_create(s->ia, &s->pz) != DAT_SUCCESS ||
	    dat_evd_kcreate(s->ia, 64, echo ? DAT_UPCALL_SINGLE_INSTANCE :
			    DAT_UPCALL_DISABLE, echo ? &up : NULL,
			    DAT_EVD_DTO_FLAG, &s->dto) != DAT_SUCCESS ||
	    dat_evd_kcreate(s->ia, 8, DAT_UPCALL_DISABLE, NULL,
			    DAT_EVD_CONNECTION_FLAG, &s->conn) != DAT_SUCCESS ||
	    dat_evd_kcreate(s->ia, 8, DAT_UPCALL_DISABLE, NULL,
			    DAT_EVD_CR_FLAG, &s->cr) != DAT_SUCCESS ||
	    dat_ep_create(s->ia, s->pz, s->dto, s->dto, s->conn, NULL,
			  &s->ep) != DAT_SUCCESS ||
	    dat_lmr_kcreate(s->ia, DAT_MEM_TYPE_VIRTUAL, r, MSG_LEN + RDMA_LEN,
			    s->pz, DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA,
			    DAT_MEM_OPTIMIZE_DONT_CARE, &s->lmr, &s->lctx,
			    &s->rctx, &len, &s->addr) != DAT_SUCCESS) {
		pr_err("kdapl_demo: setting up %s failed\n", name);
		return -EIO;
	}
	return 0;
}

static void side_close(struct side *s)
{
	if (s->ia)
		dat_ia_close(s->ia, DAT_CLOSE_ABRUPT_FLAG);
	kfree(s->buf);
	memset(s, 0, sizeof(*s));
}

static int demo_connect(void)
{
	DAT_DTO_COOKIE ck = { .as_64 = 0 };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	DAT_LMR_TRIPLET t;
	DAT_EVENT ev;
	int err;

	sin.sin_addr.s_addr = in_aton(addr_b);
	if (dat_psp_create(b.ia, port, b.cr, DAT_PSP_CONSUMER_FLAG,
			   &psp) != DAT_SUCCESS)
		return -EADDRINUSE;
	t = trip(&b, 0, MSG_LEN);
	if (dat_ep_post_recv(b.ep, 1, &t, ck, 0) != DAT_SUCCESS)
		return -EIO;
	if (dat_ep_connect(a.ep, (struct sockaddr *)&sin, port, 5000000, 0,
			   NULL, DAT_QOS_BEST_EFFORT,
			   DAT_CONNECT_DEFAULT_FLAG) != DAT_SUCCESS)
		return -EIO;
	err = expect(b.cr, DAT_CONNECTION_REQUEST_EVENT, &ev);
	if (err)
		return err;
	if (dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, b.ep,
			  0, NULL) != DAT_SUCCESS)
		return -EIO;
	err = expect(a.conn, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	return err ?: expect(b.conn, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
}

static int demo_echo(void)
{
	DAT_DTO_COOKIE ck = { .as_64 = 0 };
	u8 *msg = a.buf, *reply = a.buf + MSG_LEN;
	DAT_LMR_TRIPLET t;
	unsigned int i, j;
	int err;

	for (i = 0; i < count; i++) {
		for (j = 0; j < MSG_LEN; j++)
			msg[j] = (u8)(i + j);
		t = trip(&a, MSG_LEN, MSG_LEN);
		if (dat_ep_post_recv(a.ep, 1, &t, ck, 0) != DAT_SUCCESS)
			return -EIO;
		t = trip(&a, 0, MSG_LEN);
		if (dat_ep_post_send(a.ep, 1, &t, ck, 0) != DAT_SUCCESS)
			return -EIO;
		err = expect(a.dto, DAT_DTO_COMPLETION_EVENT, NULL);
		err = err ?: expect(a.dto, DAT_DTO_COMPLETION_EVENT, NULL);
		if (err)
			return err;
		if (memcmp(msg, reply, MSG_LEN)) {
			pr_err("kdapl_demo: echo %u differs\n", i);
			return -EPROTO;
		}
	}
	return 0;
}

static int demo_rdma(void)
{
	DAT_DTO_COOKIE ck = { .as_64 = 0 };
	DAT_RMR_TRIPLET r = {
		.rmr_context = b.rctx,
		.virtual_address = b.addr + MSG_LEN,
		.segment_length = RDMA_LEN,
	};
	DAT_LMR_TRIPLET t;
	unsigned int j;
	int err;

	/* B's rkey is valid once B posted on its QP (the echoes did). */
	for (j = 0; j < RDMA_LEN; j++)
		a.buf[MSG_LEN + j] = (u8)(j * 13);
	t = trip(&a, MSG_LEN, RDMA_LEN);
	if (dat_ep_post_rdma_write(a.ep, 1, &t, ck, &r, 0) != DAT_SUCCESS)
		return -EIO;
	err = expect(a.dto, DAT_DTO_COMPLETION_EVENT, NULL);
	memset(a.buf + MSG_LEN, 0, RDMA_LEN);
	if (!err && dat_ep_post_rdma_read(a.ep, 1, &t, ck, &r, 0) !=
	    DAT_SUCCESS)
		err = -EIO;
	err = err ?: expect(a.dto, DAT_DTO_COMPLETION_EVENT, NULL);
	if (err)
		return err;
	for (j = 0; j < RDMA_LEN; j++) {
		if (a.buf[MSG_LEN + j] != (u8)(j * 13) ||
		    b.buf[MSG_LEN + j] != (u8)(j * 13)) {
			pr_err("kdapl_demo: RDMA data differs at %u\n", j);
			return -EPROTO;
		}
	}
	return 0;
}

static int __init demo_init(void)
{
	int err;

	err = side_open(&a, ia_a, false);
	err = err ?: side_open(&b, ia_b, true);
	err = err ?: demo_connect();
	err = err ?: demo_echo();
	err = err ?: demo_rdma();
	if (err) {
		pr_err("kdapl_demo: failed: %d\n", err);
		side_close(&a);
		side_close(&b);
		return err;
	}
	pr_info("kdapl_demo: %s -> %s:%u connected, %u/%u echoes checked, RDMA write+read of %u bytes checked: ok\n",
		ia_a, addr_b, port, atomic_read(&echoed), count, RDMA_LEN);
	return 0;
}

static void __exit demo_exit(void)
{
	DAT_EP_STATE state = DAT_EP_STATE_DISCONNECTED;
	DAT_EVENT ev;

	/* The connection may be gone already (device removed, peer left). */
	dat_ep_get_status(a.ep, &state, NULL, NULL);
	if (state != DAT_EP_STATE_CONNECTED)
		pr_info("kdapl_demo: connection already down (state %d)\n",
			state);
	else if (dat_ep_disconnect(a.ep, DAT_CLOSE_GRACEFUL_FLAG) ==
		 DAT_SUCCESS &&
		 !expect(a.conn, DAT_CONNECTION_EVENT_DISCONNECTED, &ev))
		pr_info("kdapl_demo: disconnected gracefully\n");
	dat_psp_free(psp);
	side_close(&a);
	side_close(&b);
}

module_init(demo_init);
module_exit(demo_exit);

MODULE_DESCRIPTION("kdapl demo: two IAs connect, echo and RDMA through the DAT API");
MODULE_LICENSE("GPL");
