/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Network namespace lookup shared by the KUnit suites that run in the
 * guest's test hosts (scripts/guest/lib.sh): each host is a namespace
 * known by one of its netdevs (veth1 and veth5 are in namespace "b").
 */
#ifndef KDAPL_KUNIT_TEST_NET_H
#define KDAPL_KUNIT_TEST_NET_H

#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/net_namespace.h>

/**
 * test_find_net() - the namespace that holds the netdev @ifname
 * @ifname: a netdev name
 *
 * Return: the namespace with a reference (put_net() it), or NULL.
 * Context: process; takes the RTNL.
 */
static inline struct net *test_find_net(const char *ifname)
{
	struct net *net, *found = NULL;

	rtnl_lock();
	for_each_net(net) {
		if (__dev_get_by_name(net, ifname)) {
			found = get_net(net);
			break;
		}
	}
	rtnl_unlock();
	return found;
}

#endif /* KDAPL_KUNIT_TEST_NET_H */
