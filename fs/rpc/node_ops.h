// Private to fs/rpc: every NodeService operation's struct (node_op_base.h describes their layout),
// by family. The client (node_client.cc) and the server (node_server.cc) both use these, so an
// op's two ends cannot drift apart; a new op is one struct in its family plus one row in each
// table.
#pragma once

#include "fs/rpc/node_op_base.h"
#include "fs/rpc/node_ops_chunks.h"
#include "fs/rpc/node_ops_locks.h"
#include "fs/rpc/node_ops_meta.h"
#include "fs/rpc/node_ops_names.h"
