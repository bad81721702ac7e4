/* TEMPORARY (removed before landing): weak fallbacks so the tool links while subcommands are written. */
#include "cli/cli.h"
#define STUB(fn) __attribute__((weak)) int fn(int argc, char **argv) { (void)argc; (void)argv; return cli_error(CLI_FAIL, #fn " not built yet"); }
STUB(gnn_cmd_gen) STUB(gnn_cmd_convert) STUB(gnn_cmd_info) STUB(gnn_cmd_oracle) STUB(gnn_cmd_train)
