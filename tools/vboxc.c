// SPDX-License-Identifier: MIT
/*
 * vboxc.c - the policy compiler's entry point: subcommand dispatch,
 * --help and --version.  Each subcommand lives in its own cli_*.c file.
 */
#include <vbox.h>

#include <stdio.h>

#include "cli.h"

static const struct cli_command *const commands[] = {
	&cli_compile_command,
	&cli_check_command,
	&cli_explain_command,
	&cli_preflight_command,
	&cli_diff_command,
};

static const struct cli_command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < array_size(commands); i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

static void print_main_help(void)
{
	size_t i;

	printf("Usage: %s COMMAND [OPTIONS] RULES...\n"
	       "       %s help [COMMAND]\n"
	       "       %s --help | --version\n"
	       "\n"
	       "Compile ordered sandbox rule files.\n"
	       "\n"
	       "Commands:\n",
	       CLI_PROGNAME, CLI_PROGNAME, CLI_PROGNAME);
	for (i = 0; i < array_size(commands); i++)
		printf("  %-10s %s\n", commands[i]->name, commands[i]->summary);
	printf("\n"
	       "Run '%s help COMMAND' or '%s COMMAND --help' for a command's\n"
	       "options.\n",
	       CLI_PROGNAME, CLI_PROGNAME);
}

static int not_implemented(const struct cli_command *cmd)
{
	fprintf(stderr, "%s: '%s' is not implemented yet\n", CLI_PROGNAME,
		cmd->name);
	return CLI_EXIT_USAGE;
}

/* "vboxc help [COMMAND]" */
static int help_main(int argc, char **argv)
{
	const struct cli_command *cmd;

	if (argc < 2) {
		print_main_help();
		return CLI_EXIT_OK;
	}
	if (argc > 2)
		return cli_usage_error(NULL, "too many arguments to 'help'");
	cmd = find_command(argv[1]);
	if (!cmd)
		return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
	if (!cmd->run)
		return not_implemented(cmd);
	cli_print_help(cmd, stdout);
	return CLI_EXIT_OK;
}

static int dispatch(int argc, char **argv)
{
	const struct cli_command *cmd;
	const char *word;

	if (argc < 2)
		return cli_usage_error(NULL, "missing command");
	word = argv[1];
	if (strcmp(word, "--help") == 0 || strcmp(word, "-h") == 0) {
		print_main_help();
		return CLI_EXIT_OK;
	}
	if (strcmp(word, "--version") == 0) {
		cli_print_version();
		return CLI_EXIT_OK;
	}
	if (strcmp(word, "help") == 0)
		return help_main(argc - 1, argv + 1);
	if (word[0] == '-')
		return cli_usage_error(NULL, "unknown option '%s'", word);
	cmd = find_command(word);
	if (!cmd)
		return cli_usage_error(NULL, "unknown command '%s'", word);
	if (!cmd->run)
		return not_implemented(cmd);
	return cli_command_main(cmd, argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
	return cli_finish_stdout(dispatch(argc, argv));
}
