/* comm_peers.h: the ranks of one GPU communicator that live in this process, and what they can do without the
 * library: copy blocks straight into each other's memory with the copy engines (comm_peers.c), used by nccl.c. */
#ifndef WK_GPU_COMM_PEERS_H
#define WK_GPU_COMM_PEERS_H

#include <stdatomic.h>

#include "gpu/device.h"

typedef struct wk_peer wk_peer; /* one rank's membership */

/* Rank `rank` of the communicator of id (size ranks) on d joins its process-wide group, before the library's
 * init (which returns only once every rank has called it, so after it the group knows every rank of this
 * process). broken: the rank's communicator's flag, read while waiting for the others. */
wk_status wk_peer_join(const wk_comm_id *id, int size, int rank, wk_gpu_dev *d, double timeout_s,
                       const atomic_bool *broken, wk_peer **out);
/* The rank leaves (NULL: nothing), once the others have queued their waits on its last gather's events; a gather
 * waiting for it fails at once, and later ones go through the library (not every rank is here any more). */
void wk_peer_leave(wk_peer *p);
/* The rank's communicator broke or was aborted: the others stop waiting for it. */
void wk_peer_fail(wk_peer *p);

/* backend.h's gather_made for a rank whose every peer is in this process with a direct path (otherwise *done
 * false and nothing called): make(ctx, i, ...) for i < chunks queues chunk i of this rank's block on d's current
 * stream; each chunk goes to the same place in every other rank's buf by the copy engines as soon as it is made;
 * the current stream's later work waits for the copies into and out of buf. Every rank calls it with the same
 * block_bytes and chunks (checked: all ranks fail otherwise); the ranks meet twice on the host (buffers known,
 * copies queued). */
wk_status wk_peer_gather(wk_peer *p, void *buf, size_t block_bytes, int chunks,
                         wk_status (*make)(void *ctx, int chunk, size_t *offset, size_t *bytes), void *ctx,
                         bool *done);

#endif
