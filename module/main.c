// SPDX-License-Identifier: GPL-2.0
/*
 * memcg_dirty: audit the kernel's per-memcg dirty page counter.
 *
 * Linux 4.2 added the counter; 4.3 fixed a migration bug that made it
 * underflow without anyone noticing.  This module keeps its own count from
 * probes on the accounting paths and shows both side by side in debugfs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>
#include "attach.h"
#include "audit.h"
#include "cgroups.h"
#include "compat.h"
#include "control.h"
#include "debugfs.h"
#include "domains.h"
#include "anomaly.h"
#include "inject_hooks.h"
#include "inject.h"
#include "ledger.h"
#include "memcg.h"
#include "resync.h"
#include "scan.h"
#include "shadow.h"
#include "watch.h"

static int __init md_init(void)
{
	int ret;

	if (mem_cgroup_disabled()) {
		pr_err("the memory cgroup controller is disabled (cgroup_disable=memory): nothing to audit\n");
		return -ENODEV;
	}
	ret = md_compat_init(md_inject_slot_shift());
	if (ret)
		return ret;
	md_domains_init();	/* without bdi_list, only the domains are not audited */
	md_events_init();
	md_inject_init();
	ret = md_shadow_init();
	if (ret)
		return ret;
	ret = md_ledger_init();
	if (ret)
		goto out_shadow;
	ret = md_debugfs_init();
	if (ret) {
		pr_err("cannot create /sys/kernel/debug/memcg_dirty: %d\n", ret);
		goto out_ledger;
	}
	md_delay(MD_D_LOAD_FILES);	/* a reader may make entries now */
	ret = md_probes_register_free();
	if (ret)
		goto out_debugfs;
	/*
	 * Every memcg that exists now may hold pages dirtied before we looked:
	 * entries for all, unsynced, before the probes can ask for them (an
	 * empty pool would lose their events), and again once the probes are
	 * armed, for memcgs created meanwhile.
	 */
	md_ledger_unsync_existing();
	ret = md_probes_register_events();
	if (ret)
		goto out_debugfs;
	md_delay(MD_D_LOAD);
	md_ledger_unsync_existing();
	md_ledger_loaded();
	md_cgroups_reconcile();
	md_resync_kick();
	md_watch_init();
	md_audit_start();
	md_control_start();
	pr_info("%s loaded, auditing the %s memory cgroup hierarchy\n",
		MEMCG_DIRTY_VERSION, md_cgroup_v1() ? "v1" : "v2");
	return 0;

out_debugfs:
	md_ledger_stop();
	md_debugfs_stop();
	md_debugfs_exit();
	md_probes_unregister();		/* whichever attached, memcg_free last */
	md_domains_exit();
out_ledger:
	md_ledger_exit();
out_shadow:
	md_shadow_exit();
	return ret;
}

static void __exit md_exit(void)
{
	md_control_stop();	/* first: no command may arm the watch or scan */
	md_audit_stop();	/* before the watch: a pass may arm it */
	md_watch_stop();
	md_probes_unregister_events();
	md_ledger_stop();
	md_resync_stop();
	md_debugfs_stop();
	md_delay(MD_D_UNLOAD);
	md_inject_exit();
	md_debugfs_exit();
	md_watch_exit();	/* nothing can arm it now */
	/* last: until now a freed memcg still had to mark its entry dead */
	md_probes_unregister();
	md_shadow_exit();
	md_ledger_exit();
	md_domains_exit();
	pr_info("unloaded\n");
}

module_init(md_init);
module_exit(md_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("memcg_dirty developers");
MODULE_DESCRIPTION("Independent per-memcg dirty page ledger and checks against memory.stat");
MODULE_VERSION(MEMCG_DIRTY_VERSION);
