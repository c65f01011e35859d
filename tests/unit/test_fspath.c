/* SPDX-License-Identifier: MIT */
/*
 * test_fspath.c - file patterns: expansion, windows forms, cleaning,
 * guardrails, matching, coverage, queried paths and link resolution
 * (doc/rules.md §5 "File patterns", §7 "Shadow analysis", §8 "Queries").
 *
 * The three targets' traits are spelled out here instead of taken from
 * target.c, so the tests pin exactly the trait values they rely on.
 * Matching, coverage, queries and link resolution are in
 * test_fspath_match.c (test_fspath_int.h).
 */
#include <vbox.h>

#include <pwd.h>
#include <unistd.h>

#include "diag.h"
#include "fspath.h"
#include "target.h"
#include "tap.h"
#include "test_fspath_int.h"

/* The environment is "char *const *": modifiable strings, not literals. */
#define E(s) ((char[]){ s })

static const char *const unix_home[] = { "HOME", NULL };
static const char *const win_home[] = { "HOME", "USERPROFILE", NULL };

const struct target_traits t_linux = {
	.name = "linux",
	.home_vars = unix_home,
	.passwd_home = true,
	.config_var = "XDG_CONFIG_HOME",
	.config_var_must_be_absolute = true,
	.config_home_suffix = "/.config",
};

const struct target_traits t_darwin = {
	.name = "darwin",
	.fold_case = true,
	.home_vars = unix_home,
	.passwd_home = true,
	.config_home_suffix = "/Library/Application Support",
};

const struct target_traits t_windows = {
	.name = "windows",
	.fold_case = true,
	.windows_paths = true,
	.vars_fold_case = true,
	.home_vars = win_home,
	.config_var = "AppData",
};

static char *env_unix[] = {
	E("HOME=/home/u"),
	E("PROJ=/srv/proj"),
	E("XDG_CONFIG_HOME=/home/u/.xdg"),
	E("EMPTY="),
	E("STAR=/srv/*"),
	E("QMARK=/srv/a?"),
	E("INDIRECT=$PROJ"),
	E("REL=rel/dir"),
	E("Mixed=/mixed"),
	NULL,
};

static char *env_windows[] = {
	E("USERPROFILE=C:\\Users\\Bob"),
	E("AppData=C:\\Users\\Bob\\AppData\\Roaming"),
	E("ProgramFiles(x86)=C:\\Program Files (x86)"),
	E("SystemDrive=C:"),
	E("Tools=D:/tools"),
	NULL,
};

const struct var_source vs_unix = {
	.environ = env_unix,
	.home_override = "/home/pw",
};

static const struct var_source vs_windows = {
	.environ = env_windows,
};

static const struct var_source vs_none = { 0 };

/* Compile @raw; returns the normalized text or NULL and the message. */
static char *compile(const struct target_traits *t,
		     const struct var_source *vs, const char *raw, bool deny,
		     char **msg)
{
	struct diag_list diags;
	struct fs_pattern p;
	char *text = NULL;

	diag_list_init(&diags);
	*msg = NULL;
	if (fs_pattern_compile(raw, deny, NULL, t, vs, &p, &diags) == 0) {
		text = xstrdup(p.text);
		if (diags.n)
			*msg = xstrdup("unexpected diagnostic on success");
		fs_pattern_free(&p);
	} else if (diags.n == 1 && diags.nerrors == 1) {
		*msg = xstrdup(diags.items[0].msg);
	} else {
		*msg = xstrdup("failure without exactly one error");
	}
	diag_list_free(&diags);
	return text;
}

static void expect_text(const struct target_traits *t,
			const struct var_source *vs, const char *raw,
			bool deny, const char *want)
{
	char *msg, *got = compile(t, vs, raw, deny, &msg);

	is_str(got, want, "%s: %s'%s' -> '%s'", t->name, deny ? "deny:" : "",
	       raw, want);
	if (msg)
		diag("  message: %s", msg);
	free(got);
	free(msg);
}

static void expect_err(const struct target_traits *t,
		       const struct var_source *vs, const char *raw,
		       bool deny, const char *part)
{
	char *msg, *got = compile(t, vs, raw, deny, &msg);

	if (!ok(!got && msg && strstr(msg, part),
		"%s: %s'%s' fails with '%s'", t->name, deny ? "deny:" : "",
		raw, part))
		diag("  got text '%s', message '%s'", got ? got : "(null)",
		     msg ? msg : "(null)");
	free(got);
	free(msg);
}

static void test_pathlike(void)
{
	static const char *const yes[] = {
		"/etc", "~", "~/x", "$HOME/x", "${HOME}", "%AppData%\\x",
		"**/.ssh/**", "\\\\server\\share", "C:\\x", "c:/x",
	};
	static const char *const no[] = {
		"example.com", "*.example.com", "*", "C:", "c:x", "\\x",
		"10.0.0.1:80", "",
	};
	size_t i;

	for (i = 0; i < array_size(yes); i++)
		ok(fs_target_is_pathlike(yes[i]), "'%s' is path-like",
		   yes[i]);
	for (i = 0; i < array_size(no); i++)
		ok(!fs_target_is_pathlike(no[i]), "'%s' is not path-like",
		   no[i]);
}

static void test_expansion(void)
{
	const char *defs_override[] = { "PROJ=/d/first", "PROJ=/d/second" };
	const char *defs_empty[] = { "PROJ=" };
	const char *defs_home[] = { "HOME=/home/d" };
	const char *defs_ucd[] = { "UserConfigDir=/cfg/d" };
	const char *defs_ucd_empty[] = { "UserConfigDir=" };
	const char *defs_star[] = { "X=/a/*" };
	const char *defs_lower[] = { "proj=/d/lower" };
	const char *defs_home_empty[] = { "HOME=" };
	const char *defs_lower_home[] = { "home=D:\\Home" };
	struct passwd *pw;
	char *env_relxdg[] = { E("HOME=/home/u"), E("XDG_CONFIG_HOME=rel/cfg"),
			       NULL };
	char *env_noxdg[] = { E("HOME=/home/u"), NULL };
	char *env_upper[] = { E("HOME=/home/u"), E("PROJ=/srv/upper"), NULL };
	char *env_win_home[] = { E("HOME=C:\\Home"),
				 E("USERPROFILE=C:\\Users\\Bob"), NULL };
	char *env_win_noapp[] = { E("USERPROFILE=C:\\Users\\Bob"), NULL };
	struct var_source vs;

	/* ~ */
	expect_text(&t_linux, &vs_unix, "~", true, "/home/u");
	expect_text(&t_linux, &vs_unix, "~/.ssh", false, "/home/u/.ssh");
	expect_text(&t_linux, &vs_unix, "~/", true, "/home/u");
	expect_err(&t_linux, &vs_unix, "~bob/.ssh", false, "'~user'");
	expect_text(&t_linux, &vs_unix, "/srv/a~b/~", false, "/srv/a~b/~");
	expect_text(&t_windows, &vs_windows, "~\\.ssh", false,
		    "/c/Users/Bob/.ssh");

	/* $NAME, ${NAME}, %NAME% */
	expect_text(&t_linux, &vs_unix, "$PROJ/out", false, "/srv/proj/out");
	expect_text(&t_linux, &vs_unix, "${PROJ}/out", false,
		    "/srv/proj/out");
	expect_text(&t_linux, &vs_unix, "${PROJ}x", false, "/srv/projx");
	expect_text(&t_linux, &vs_unix, "%PROJ%/out", false,
		    "/srv/proj/out");
	expect_err(&t_linux, &vs_unix, "$PROJx/out", false,
		   "undefined variable '$PROJx'");
	expect_text(&t_linux, &vs_unix, "$HOME/x", false, "/home/u/x");
	expect_text(&t_linux, &vs_unix, "${HOME}", true, "/home/u");
	expect_text(&t_windows, &vs_windows, "%ProgramFiles(x86)%\\App",
		    false, "/c/Program Files (x86)/App");
	expect_text(&t_windows, &vs_windows, "%SystemDrive%\\Temp", false,
		    "/c/Temp");

	/* A '$' or '%' that starts no variable is literal. */
	expect_text(&t_linux, &vs_unix, "/srv/$/x", false, "/srv/$/x");
	expect_text(&t_linux, &vs_unix, "/srv/a$", false, "/srv/a$");
	expect_text(&t_linux, &vs_unix, "/srv/$1", false, "/srv/$1");
	expect_text(&t_linux, &vs_unix, "/srv/${}", false, "/srv/${}");
	expect_text(&t_linux, &vs_unix, "/srv/${PROJ", false, "/srv/${PROJ");
	expect_text(&t_linux, &vs_unix, "/srv/${1A}", false, "/srv/${1A}");
	expect_text(&t_linux, &vs_unix, "/srv/100%", false, "/srv/100%");
	expect_text(&t_linux, &vs_unix, "/srv/%%", false, "/srv/%%");
	expect_text(&t_linux, &vs_unix, "/srv/%a b%", false, "/srv/%a b%");
	expect_text(&t_linux, &vs_unix, "/srv/%%PROJ%", false,
		    "/srv/%/srv/proj");
	expect_err(&t_linux, &vs_unix, "/srv/%NOPE%", false,
		   "undefined variable '%NOPE%'");
	expect_err(&t_linux, &vs_unix, "${NOPE}/x", false,
		   "undefined variable '${NOPE}'");

	/* Undefined and empty variables are errors naming them. */
	expect_err(&t_linux, &vs_unix, "$NOPE/x", true,
		   "undefined variable '$NOPE'");
	expect_err(&t_linux, &vs_unix, "$EMPTY/x", true,
		   "undefined variable '$EMPTY'");
	expect_err(&t_linux, &vs_unix, "$NOPE/x", true, "'$NOPE/x'");

	/* -D first, a later -D wins, empty -D does not fall back. */
	vs = vs_unix;
	vs.defines = defs_override;
	vs.ndefines = 2;
	expect_text(&t_linux, &vs, "$PROJ", false, "/d/second");
	vs.defines = defs_empty;
	vs.ndefines = 1;
	expect_err(&t_linux, &vs, "$PROJ/x", false,
		   "undefined variable '$PROJ'");
	vs.defines = defs_home;
	expect_text(&t_linux, &vs, "~/x", false, "/home/d/x");
	expect_text(&t_linux, &vs, "$HOME/x", false, "/home/d/x");
	vs.defines = defs_star;
	expect_err(&t_linux, &vs, "$X", true, "wildcard");
	/* Names are case-sensitive on linux, not on windows. */
	vs.defines = defs_lower;
	expect_text(&t_linux, &vs, "$PROJ/y", false, "/srv/proj/y");
	expect_text(&t_linux, &vs, "$proj/y", false, "/d/lower/y");
	expect_err(&t_linux, &vs_unix, "$mixed", true, "undefined variable");
	expect_text(&t_windows, &vs_windows, "%appdata%\\x", false,
		    "/c/Users/Bob/AppData/Roaming/x");
	expect_text(&t_windows, &vs_windows, "$APPDATA/x", false,
		    "/c/Users/Bob/AppData/Roaming/x");
	vs = vs_windows;
	vs.defines = defs_lower;
	vs.ndefines = 1;
	expect_text(&t_windows, &vs, "%PROJ%", false, "/d/lower");
	/* Environment only. */
	vs = vs_unix;
	vs.environ = env_upper;
	expect_text(&t_linux, &vs, "$PROJ", false, "/srv/upper");

	/* Values with wildcards, values not expanded again. */
	expect_err(&t_linux, &vs_unix, "$STAR", true,
		   "a variable must never widen a rule");
	expect_err(&t_linux, &vs_unix, "${QMARK}/x", false, "'/srv/a?'");
	expect_err(&t_linux, &vs_unix, "$INDIRECT", true, "not absolute");
	expect_err(&t_linux, &vs_unix, "$REL", true, "not absolute");

	/* The home directory: HOME, then passwd (or the override). */
	vs = vs_none;
	vs.home_override = "/home/pw";
	expect_text(&t_linux, &vs, "~/x", false, "/home/pw/x");
	expect_text(&t_linux, &vs, "$HOME/x", false, "/home/pw/x");
	vs.defines = defs_home_empty;
	vs.ndefines = 1;
	expect_text(&t_linux, &vs, "~/y", false, "/home/pw/y");
	vs = vs_none;
	vs.home_override = "";
	expect_err(&t_linux, &vs, "~/x", false, "undefined home directory");
	expect_err(&t_linux, &vs, "$HOME/x", false,
		   "neither HOME nor the passwd entry is set");
	/* Windows: HOME, then USERPROFILE, never passwd. */
	expect_text(&t_windows, &vs_windows, "~\\x", false,
		    "/c/Users/Bob/x");
	expect_text(&t_windows, &vs_windows, "$HOME/x", false,
		    "/c/Users/Bob/x");
	vs = vs_windows;
	vs.environ = env_win_home;
	expect_text(&t_windows, &vs, "~/x", false, "/c/Home/x");
	vs.environ = NULL;
	vs.home_override = "/c/pw";
	expect_err(&t_windows, &vs, "~/x", false,
		   "neither HOME nor USERPROFILE is set");
	vs.defines = defs_lower_home;
	vs.ndefines = 1;
	expect_text(&t_windows, &vs, "~/x", false, "/d/Home/x");
	vs.home_override = "";
	expect_err(&t_linux, &vs, "~/x", false, "undefined home");
	/* The real passwd entry when nothing else gives the home. */
	pw = getpwuid(getuid());
	if (pw && pw->pw_dir && pw->pw_dir[0] == '/' && pw->pw_dir[1] &&
	    !strpbrk(pw->pw_dir, "*?") &&
	    pw->pw_dir[strlen(pw->pw_dir) - 1] != '/') {
		char *want = xasprintf("%s/x", pw->pw_dir);

		expect_text(&t_linux, &vs_none, "~/x", false, want);
		expect_text(&t_darwin, &vs_none, "$HOME/x", false, want);
		free(want);
	}
	expect_err(&t_windows, &vs_none, "~/x", false, "undefined home");

	/* $UserConfigDir per target; -D overrides. */
	expect_text(&t_linux, &vs_unix, "$UserConfigDir/app", false,
		    "/home/u/.xdg/app");
	expect_text(&t_linux, &vs_unix, "${UserConfigDir}/app", false,
		    "/home/u/.xdg/app");
	expect_text(&t_linux, &vs_unix, "%UserConfigDir%/app", false,
		    "/home/u/.xdg/app");
	vs = vs_unix;
	vs.environ = env_relxdg;
	expect_text(&t_linux, &vs, "$UserConfigDir/app", false,
		    "/home/u/.config/app");
	vs.environ = env_noxdg;
	expect_text(&t_linux, &vs, "$UserConfigDir/app", false,
		    "/home/u/.config/app");
	expect_text(&t_darwin, &vs_unix, "$UserConfigDir/app", false,
		    "/home/u/Library/Application Support/app");
	expect_text(&t_windows, &vs_windows, "$UserConfigDir\\app", false,
		    "/c/Users/Bob/AppData/Roaming/app");
	expect_text(&t_windows, &vs_windows, "%userconfigdir%\\app", false,
		    "/c/Users/Bob/AppData/Roaming/app");
	vs = vs_windows;
	vs.environ = env_win_noapp;
	expect_err(&t_windows, &vs, "$UserConfigDir\\app", false,
		   "undefined variable '$UserConfigDir'");
	vs = vs_unix;
	vs.defines = defs_ucd;
	vs.ndefines = 1;
	expect_text(&t_linux, &vs, "$UserConfigDir/app", false,
		    "/cfg/d/app");
	expect_text(&t_darwin, &vs, "$UserConfigDir/app", false,
		    "/cfg/d/app");
	vs.defines = defs_ucd_empty;
	expect_err(&t_linux, &vs, "$UserConfigDir/app", false,
		   "undefined variable '$UserConfigDir'");
	/* Not the special name on linux: case matters there. */
	expect_err(&t_linux, &vs_unix, "$userconfigdir/app", false,
		   "undefined variable '$userconfigdir'");
}

static void test_windows_forms(void)
{
	expect_text(&t_windows, &vs_windows, "C:\\x\\y", false, "/c/x/y");
	expect_text(&t_windows, &vs_windows, "C:/x/y", false, "/c/x/y");
	expect_text(&t_windows, &vs_windows, "c:", true, "/c");
	expect_text(&t_windows, &vs_windows, "C:\\", true, "/c");
	expect_text(&t_windows, &vs_windows, "/c/x/y", false, "/c/x/y");
	expect_text(&t_windows, &vs_windows, "/C/Users/X", false,
		    "/c/Users/X");
	expect_text(&t_windows, &vs_windows, "%Tools%\\bin", false,
		    "/d/tools/bin");
	expect_text(&t_windows, &vs_windows, "**\\.ssh\\**", true,
		    "**/.ssh/**");
	expect_text(&t_windows, &vs_windows, "/**/.ssh", true, "/**/.ssh");
	expect_err(&t_windows, &vs_windows, "\\x", true, "not on a drive");
	expect_err(&t_windows, &vs_windows, "/data/x", true,
		   "not on a drive");
	expect_err(&t_windows, &vs_windows, "/c:/x", true, "not on a drive");
	expect_err(&t_windows, &vs_windows, "\\\\server\\share", true,
		   "UNC");
	expect_err(&t_windows, &vs_windows, "//server/share", true, "UNC");
	expect_err(&t_windows, &vs_windows, "C:foo", true, "drive");
	expect_text(&t_windows, &vs_windows, "C:\\..\\Windows", true,
		    "/c/Windows");
	expect_text(&t_windows, &vs_windows, "/c/../../d", true, "/c/d");
	expect_err(&t_windows, &vs_windows, "\\c\\x", true,
		   "not on a drive");
	expect_err(&t_windows, &vs_windows, "/./c/x", true,
		   "not on a drive");
	/* Off windows a backslash is an ordinary character. */
	expect_text(&t_linux, &vs_unix, "/a\\b", false, "/a\\b");
	expect_text(&t_linux, &vs_unix, "//server/share", false,
		    "/server/share");
	expect_err(&t_linux, &vs_unix, "C:\\x", false, "not absolute");
	expect_err(&t_darwin, &vs_unix, "C:/x", false, "not absolute");
}

static void test_cleaning(void)
{
	struct diag_list diags;
	struct fs_pattern p;

	expect_text(&t_linux, &vs_unix, "/a/./b//c/", false, "/a/b/c");
	expect_text(&t_linux, &vs_unix, "/a/b/../c", false, "/a/c");
	expect_text(&t_linux, &vs_unix, "/../../etc", false, "/etc");
	expect_text(&t_linux, &vs_unix, "/a/../../../b/.", false, "/b");
	expect_text(&t_linux, &vs_unix, "//etc/ssh", false, "/etc/ssh");
	expect_err(&t_linux, &vs_unix, "/a/b/c/../../..", true,
		   "cover everything");
	expect_text(&t_linux, &vs_unix, "/a/*/x/../y", false, "/a/*/y");
	expect_err(&t_linux, &vs_unix, "/a/*/../b", false,
		   "'..' after the wildcard segment '*'");
	expect_err(&t_linux, &vs_unix, "/a/b?/./../c", false,
		   "wildcard segment 'b?'");
	expect_err(&t_linux, &vs_unix, "**/..", true, "'..' after");
	expect_text(&t_linux, &vs_unix, "**/.ssh/**", true, "**/.ssh/**");
	expect_err(&t_linux, &vs_unix, "**", true, "cover everything");
	expect_err(&t_linux, &vs_unix, "relative/x", false, "not absolute");
	expect_err(&t_linux, &vs_unix, "./x", false, "not absolute");
	expect_err(&t_linux, &vs_unix, "", true, "not absolute");
	expect_err(&t_linux, &vs_unix, "**x/y", true, "not absolute");
	expect_err(&t_linux, &vs_unix, "*/y", true, "not absolute");
	expect_text(&t_linux, &vs_unix, "/a/[b]/c", false, "/a/[b]/c");

	/* Segment kinds, key, folding. */
	diag_list_init(&diags);
	if (ok(!fs_pattern_compile("/Srv/**x/**/A?/Lit", false, NULL,
				   &t_darwin, &vs_unix, &p, &diags),
	       "darwin: segment kinds pattern compiles")) {
		is_int(p.nsegs, 5, "five segments");
		is_int(p.segs[0].kind, SEG_LIT, "'Srv' is literal");
		is_int(p.segs[1].kind, SEG_GLOB, "'**x' is a glob");
		is_int(p.segs[2].kind, SEG_STARSTAR, "'**' is starstar");
		is_int(p.segs[3].kind, SEG_GLOB, "'A?' is a glob");
		is_int(p.segs[4].kind, SEG_LIT, "'Lit' is literal");
		is_int(p.nlit, 1, "one leading literal");
		ok(p.wild, "pattern is wild");
		is_str(p.text, "/Srv/**x/**/A?/Lit", "text keeps case");
		is_str(p.key, "srv/**x/**/a?/lit", "key is folded");
		is_str(p.segs[4].s, "lit", "segment is folded");
		is_int(p.segs[4].len, 3, "segment length");
		fs_pattern_free(&p);
	}
	if (ok(!fs_pattern_compile("/Srv/Work", false, NULL, &t_linux,
				   &vs_unix, &p, &diags),
	       "linux: literal pattern compiles")) {
		is_str(p.key, "Srv/Work", "linux key keeps case");
		ok(!p.wild, "literal pattern is not wild");
		is_int(p.nlit, 2, "two literal segments");
		fs_pattern_free(&p);
	}
	if (ok(!fs_pattern_compile("**/.ssh/**", true, NULL, &t_linux,
				   &vs_unix, &p, &diags),
	       "'**/.ssh/**' compiles")) {
		is_str(p.key, "**/.ssh/**", "relative key");
		is_int(p.nlit, 0, "no leading literal");
		fs_pattern_free(&p);
	}
	is_int(diags.n, 0, "no diagnostics for valid patterns");
	diag_list_free(&diags);
	fs_pattern_free(NULL);
	fs_path_free(NULL);
}

static void test_guardrails(void)
{
	static const char *const everything[] = {
		"/", "/**", "**", "/*", "/**/**", "/*/**", "/***",
		"/./", "/..",
	};
	const char *defs_home[] = { "HOME=/Users/Me" };
	struct var_source vs;
	size_t i;

	for (i = 0; i < array_size(everything); i++) {
		expect_err(&t_linux, &vs_unix, everything[i], false,
			   "would cover everything");
		expect_err(&t_linux, &vs_unix, everything[i], true,
			   "would cover everything");
		expect_err(&t_windows, &vs_windows, everything[i], false,
			   "would cover everything");
	}
	expect_err(&t_linux, &vs_unix, "/", false,
		   "set the global posture with '@default write'");
	expect_err(&t_linux, &vs_unix, "/**", true, "pattern '/**'");
	expect_err(&t_linux, &vs_unix, "/srv/..", false,
		   "pattern '/srv/..' (that is '/') would cover everything");
	expect_err(&t_linux, &vs_unix, "//", false, "cover everything");
	expect_text(&t_linux, &vs_unix, "/*/x", true, "/*/x");
	/* Only bare '*' segments match every name. */
	expect_text(&t_linux, &vs_unix, "/w*k/*.txt", false, "/w*k/*.txt");
	expect_text(&t_linux, &vs_unix, "/?", false, "/?");
	expect_text(&t_linux, &vs_unix, "/q*/**", true, "/q*/**");
	expect_err(&t_linux, &vs_unix, "/***/**", false, "cover everything");

	/* Home root for ro/rw rows, and its expansions. */
	expect_err(&t_linux, &vs_unix, "~", false,
		   "pattern '~' (that is '/home/u') would cover the home "
		   "directory root '/home/u'");
	expect_err(&t_linux, &vs_unix, "~/", false, "home directory root");
	expect_err(&t_linux, &vs_unix, "~/**", false, "home directory root");
	expect_err(&t_linux, &vs_unix, "~/**/**", false,
		   "'/home/u'");
	expect_err(&t_linux, &vs_unix, "$HOME", false, "home directory root");
	expect_err(&t_linux, &vs_unix, "/home/u", false,
		   "home directory root");
	expect_err(&t_linux, &vs_unix, "/home/u/**", false,
		   "home directory root");
	expect_err(&t_linux, &vs_unix, "/home/x/../u/.", false,
		   "home directory root");
	/*
	 * The guardrail is literal (doc/rules.md §5, "Guardrails"):
	 * patterns that merely match
	 * the home root among other paths are allowed.
	 */
	expect_text(&t_linux, &vs_unix, "/home/*/**", false, "/home/*/**");
	expect_text(&t_linux, &vs_unix, "/home/*", false, "/home/*");
	expect_text(&t_linux, &vs_unix, "/home/?", false, "/home/?");
	expect_text(&t_linux, &vs_unix, "/home/u*", false, "/home/u*");
	expect_text(&t_linux, &vs_unix, "/home/u*/**", false, "/home/u*/**");
	expect_text(&t_linux, &vs_unix, "/**/u", false, "/**/u");
	expect_text(&t_linux, &vs_unix, "/**/u/**", false, "/**/u/**");
	expect_text(&t_linux, &vs_unix, "**/u", false, "**/u");
	expect_text(&t_linux, &vs_unix, "**/*u*/**", false, "**/*u*/**");
	expect_text(&t_linux, &vs_unix, "/*/u/**", false, "/*/u/**");
	expect_text(&t_linux, &vs_unix, "/home/**/u", false, "/home/**/u");
	expect_text(&t_linux, &vs_unix, "~/*", false, "/home/u/*");
	expect_text(&t_linux, &vs_unix, "~/**/x", false, "/home/u/**/x");
	expect_err(&t_linux, &vs_unix, "/home/u/**/**/**", false,
		   "home directory root");
	expect_err(&t_darwin, &vs_unix, "/HOME/U/**", false,
		   "home directory root");
	expect_text(&t_darwin, &vs_unix, "/HOME/*", false, "/HOME/*");
	expect_text(&t_windows, &vs_windows, "c:/users/*", false,
		    "/c/users/*");
	expect_text(&t_windows, &vs_windows, "c:/users/*/**", false,
		    "/c/users/*/**");
	expect_text(&t_linux, &vs_unix, "~", true, "/home/u");
	expect_text(&t_linux, &vs_unix, "~/**", true, "/home/u/**");
	expect_text(&t_linux, &vs_unix, "/home", false, "/home");
	expect_text(&t_linux, &vs_unix, "/home/**", false, "/home/**");
	expect_text(&t_linux, &vs_unix, "~/src/**", false, "/home/u/src/**");
	expect_text(&t_linux, &vs_unix, "/home/user", false, "/home/user");
	/* Folding targets compare the home root folded. */
	expect_text(&t_linux, &vs_unix, "/HOME/U", false, "/HOME/U");
	expect_err(&t_darwin, &vs_unix, "/HOME/U", false,
		   "home directory root");
	vs = vs_unix;
	vs.defines = defs_home;
	vs.ndefines = 1;
	expect_err(&t_darwin, &vs, "/users/me/**", false,
		   "home directory root");
	expect_text(&t_linux, &vs, "/users/me/**", false, "/users/me/**");
	expect_err(&t_windows, &vs_windows, "c:\\users\\bob", false,
		   "home directory root");
	expect_err(&t_windows, &vs_windows, "/C/USERS/BOB/**", false,
		   "home directory root");
	expect_text(&t_windows, &vs_windows, "C:\\Users", false,
		    "/c/Users");
	/* No home at all: only patterns that use it fail. */
	vs = vs_none;
	vs.home_override = "";
	expect_text(&t_linux, &vs, "/srv/work/**", false, "/srv/work/**");
	expect_err(&t_linux, &vs, "~/x", false, "undefined home");

	/* Drive roots: ro/rw on windows only. */
	expect_err(&t_windows, &vs_windows, "/c", false, "whole drive '/c'");
	expect_err(&t_windows, &vs_windows, "/c/**", false, "whole drive");
	expect_err(&t_windows, &vs_windows, "C:\\", false, "whole drive");
	expect_err(&t_windows, &vs_windows, "D:", false, "whole drive '/d'");
	expect_err(&t_windows, &vs_windows, "d:/**/**", false,
		   "whole drive");
	expect_text(&t_windows, &vs_windows, "C:\\", true, "/c");
	expect_text(&t_windows, &vs_windows, "/c/**", true, "/c/**");
	expect_text(&t_windows, &vs_windows, "C:\\Temp\\**", false,
		    "/c/Temp/**");
	expect_text(&t_linux, &vs_unix, "/c", false, "/c");
	expect_text(&t_linux, &vs_unix, "/c/**", false, "/c/**");
}

static void test_long_patterns(void)
{
	char big[5000], *msg, *got;
	const char *defs[1];
	char *def;
	struct var_source vs;
	int i;

	memset(big, 'a', sizeof(big) - 1);
	big[0] = '/';
	big[sizeof(big) - 1] = '\0';
	expect_err(&t_linux, &vs_unix, big, false, "too long");
	big[4096] = '\0';
	expect_err(&t_linux, &vs_unix, big, false, "too long");
	big[4095] = '\0';
	got = compile(&t_linux, &vs_unix, big, false, &msg);
	ok(got && strlen(got) == 4095, "4095-byte pattern compiles");
	free(got);
	free(msg);
	/* Many segments. */
	for (i = 0; i < 4094; i++)
		big[i] = i % 2 ? 'a' : '/';
	got = compile(&t_linux, &vs_unix, big, false, &msg);
	ok(got != NULL, "2047-segment pattern compiles");
	free(got);
	free(msg);
	/* Expansion past the limit. */
	def = xasprintf("LONG=/%04000d", 0);
	defs[0] = def;
	vs = vs_unix;
	vs.defines = defs;
	vs.ndefines = 1;
	expect_err(&t_linux, &vs, "$LONG/$LONG", false, "too long");
	free(def);
}

static void test_compile_performance(void)
{
	enum { N = 100000 };
	struct fs_pattern *pats = xcalloc(N, sizeof(*pats));
	struct diag_list diags;
	char raw[128];
	size_t i, fails = 0;

	diag_list_init(&diags);
	for (i = 0; i < N; i++) {
		snprintf(raw, sizeof(raw), i % 3 ? "/srv/proj%zu/dir/**" :
			 "~/work/file%zu.txt", i);
		fails += fs_pattern_compile(raw, i % 2, NULL, &t_linux,
					    &vs_unix, &pats[i], &diags) != 0;
	}
	is_int(fails, 0, "100,000 patterns compile");
	for (i = 0; i < N; i++)
		fs_pattern_free(&pats[i]);
	free(pats);
	diag_list_free(&diags);
}

int main(void)
{
	test_pathlike();
	test_expansion();
	test_windows_forms();
	test_cleaning();
	test_guardrails();
	test_matching();
	test_match_subtree();
	test_match_performance();
	test_queries();
	test_long_patterns();
	test_covers();
	test_resolve();
	test_compile_performance();
	return done_testing();
}
