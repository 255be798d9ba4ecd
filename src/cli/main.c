/* hangar's entry point: global options, the command table, dispatch. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "hangar/hangar.h"

/* Sorted by name. */
static const struct command *const commands[] = {
	&cmd_check,
	&cmd_coverage,
	&cmd_diff,
	&cmd_ingest,
	&cmd_merge,
	&cmd_nightly,
	&cmd_prune,
	&cmd_regroup,
	&cmd_rejected,
	&cmd_reports,
	&cmd_show,
	&cmd_stack,
	&cmd_symbolicate,
	&cmd_top,
};
#define N_COMMANDS (sizeof commands / sizeof *commands)

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hangar [--version] [--help] <command> [<args>]\n"
		"\n"
		"Offline triage of mobile-app jank, slow-method and ANR reports.\n"
		"\n"
		"Commands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-12s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(out,
		"  %-12s %s\n"
		"\n"
		"'hangar help <command>' or 'hangar <command> --help' shows a command's options.\n"
		"Exit status: 0 fine, 1 some input failed (the rest was done), 2 usage error,\n"
		"3 new clusters (diff --fail-on-new).\n"
		"See hangar(1), hangar-<command>(1) for each command, and hangar-formats(5).\n",
		"help", "show this help, or a command's");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *arg = argv[1];
	if (strcmp(arg, "--version") == 0 || strcmp(arg, "-V") == 0) {
		printf("hangar %s\n", HG_VERSION);
		return EXIT_FINE;
	}
	if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
		usage(stdout);
		return EXIT_FINE;
	}
	if (strcmp(arg, "help") == 0) {
		if (argc < 3) {
			usage(stdout);
			return EXIT_FINE;
		}
		const struct command *cmd = find_command(argv[2]);
		if (!cmd) {
			fprintf(stderr, "hangar: no command '%s'; see 'hangar help'\n", argv[2]);
			return EXIT_USAGE;
		}
		cmd->usage(stdout);
		return EXIT_FINE;
	}
	const struct command *cmd = find_command(arg);
	if (!cmd) {
		fprintf(stderr, "hangar: '%s' is not a hangar command; see 'hangar help'\n", arg);
		return EXIT_USAGE;
	}
	return cmd->run(argc - 1, argv + 1);
}
