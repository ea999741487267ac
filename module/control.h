/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The operator's commands (scan, resync, watch), for the control file in
 * debugfs and the module parameters of the same names.
 */
#ifndef MEMCG_DIRTY_CONTROL_H
#define MEMCG_DIRTY_CONTROL_H

int md_control_scan(void);
int md_control_resync(void);
int md_control_watch(const char *arg);
void md_control_start(void);
void md_control_stop(void);

#endif /* MEMCG_DIRTY_CONTROL_H */
