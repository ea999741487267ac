/* SPDX-License-Identifier: GPL-2.0 */
/* Resynchronisation: unsynced entries given their starting point (resync.c). */
#ifndef MEMCG_DIRTY_RESYNC_H
#define MEMCG_DIRTY_RESYNC_H

int md_resync(void);
int md_resync_scanned(void);
void md_resync_kick(void);
void md_resync_stop(void);

#endif /* MEMCG_DIRTY_RESYNC_H */
