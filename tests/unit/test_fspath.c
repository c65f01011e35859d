/* SPDX-License-Identifier: MIT */
/*
 * test_fspath.c - file patterns: expansion, windows forms, cleaning,
 * guardrails, matching, coverage, queried paths and link resolution
 * (doc/rules.md §5 "File patterns", §7 "Shadow analysis", §8 "Queries").
 *
 * The three targets' traits are spelled out here instead of taken from
 * target.c, so the tests pin exactly the trait values they rely on.
 */
#include <vbox.h>

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <unistd.h>
#include <sys/stat.h>

#include "diag.h"
#include "fspath.h"
#include "target.h"
#include "tap.h"

/* The environment is "char *const *": modifiable strings, not literals. */
#define E(s) ((char[]){ s })

static const char *const unix_home[] = { "HOME", NULL };
static const char *const win_home[] = { "HOME", "USERPROFILE", NULL };

static const struct target_traits t_linux = {
	.name = "linux",
	.home_vars = unix_home,
	.passwd_home = true,
	.config_var = "XDG_CONFIG_HOME",
	.config_var_must_be_absolute = true,
	.config_home_suffix = "/.config",
};

static const struct target_traits t_darwin = {
	.name = "darwin",
	.fold_case = true,
	.home_vars = unix_home,
	.passwd_home = true,
	.config_home_suffix = "/Library/Application Support",
};

static const struct target_traits t_windows = {
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

static const struct var_source vs_unix = {
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

/* @fn(@pat, @path), both compiled for @t (a diagnostic when one fails). */
static bool match_by(const struct target_traits *t, const char *pat,
		     const char *path,
		     bool (*fn)(const struct fs_pattern *,
				const struct fs_path *))
{
	struct diag_list diags;
	struct fs_pattern p;
	struct fs_path q;
	char *err = NULL;
	bool m = false;

	diag_list_init(&diags);
	if (fs_pattern_compile(pat, true, NULL, t, &vs_unix, &p, &diags)) {
		diag("cannot compile '%s': %s", pat, diags.items[0].msg);
		diag_list_free(&diags);
		return false;
	}
	if (fs_path_parse(path, t, &q, &err)) {
		diag("cannot parse '%s': %s", path, err);
		free(err);
	} else {
		m = fn(&p, &q);
		fs_path_free(&q);
	}
	fs_pattern_free(&p);
	diag_list_free(&diags);
	return m;
}

static bool match(const struct target_traits *t, const char *pat,
		  const char *path)
{
	return match_by(t, pat, path, fs_match);
}

/* fs_match_subtree(), which never says yes where fs_match() says no. */
static bool subtree_checked(const struct fs_pattern *p, const struct fs_path *q)
{
	return fs_match_subtree(p, q) && fs_match(p, q);
}

/* Does @pat match @path and all below it (fs_match_subtree)? */
static bool match_subtree(const char *pat, const char *path)
{
	return match_by(&t_linux, pat, path, subtree_checked);
}

/*
 * The launcher skips a lower row's mount on a directory only where a
 * higher row decides the whole subtree (runtime/linux/mounts.c): a
 * pattern that matches the directory alone must say no.
 */
static void test_match_subtree(void)
{
	static const struct {
		const char *pat, *path;
		bool want;
	} cases[] = {
		{ "/a/b", "/a/b", true },
		{ "/a", "/a/b", true },
		{ "/a/b/c", "/a/b", false },
		{ "/a/*", "/a/b", false },
		{ "/a/?", "/a/b", false },
		{ "/a/*/**", "/a/b", true },
		{ "/a/**", "/a/b/c", true },
		{ "/a/b/**", "/a/b", true },
		{ "/a/**/c", "/a/b", false },
		{ "/a/**/c", "/a/c", false },
		{ "/a/*/c/**", "/a/b/c/d", true },
		{ "/a/*/c/**", "/a/b/x", false },
		{ "/x/**", "/a/b", false },
		{ "**/b", "/a/b", false },
		{ "/a/b*", "/a/bc", false },
		{ "/a/b*/**", "/a/bc", true },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ok(match_subtree(cases[i].pat, cases[i].path) == cases[i].want,
		   "subtree: '%s' %s '%s' and all below it", cases[i].pat,
		   cases[i].want ? "matches" : "does not match",
		   cases[i].path);
}

#define MATCH(t, pat, path) \
	ok(match(t, pat, path), "%s: '%s' matches '%s'", (t)->name, pat, path)
#define NOMATCH(t, pat, path) \
	ok(!match(t, pat, path), "%s: '%s' does not match '%s'", (t)->name, \
	   pat, path)

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

static void test_matching(void)
{
	/* The examples of doc/rules.md §5, "Matching". */
	MATCH(&t_linux, "/etc/ssh/**", "/etc/ssh");
	MATCH(&t_linux, "/etc/ssh/**", "/etc/ssh/sshd_config");
	MATCH(&t_linux, "/etc/ssh/**", "/etc/ssh/a/b/c");
	NOMATCH(&t_linux, "/etc/ssh/**", "/etc/sshd");
	NOMATCH(&t_linux, "/etc/ssh/**", "/etc");
	MATCH(&t_linux, "/home/*/.ssh", "/home/u/.ssh");
	NOMATCH(&t_linux, "/home/*/.ssh", "/home/u/.ssh/id_rsa");
	NOMATCH(&t_linux, "/home/*/.ssh", "/home/.ssh");
	MATCH(&t_linux, "/srv/work", "/srv/work");
	MATCH(&t_linux, "/srv/work", "/srv/work/a/b");
	NOMATCH(&t_linux, "/srv/work", "/srv/workshop");
	NOMATCH(&t_linux, "/srv/work", "/srv");
	MATCH(&t_linux, "**/.ssh/**", "/home/u/.ssh/id_rsa");
	MATCH(&t_linux, "**/.ssh/**", "/.ssh");
	NOMATCH(&t_linux, "**/.ssh/**", "/home/u/.sshx/id_rsa");
	MATCH(&t_linux, "/**/.ssh", "/a/b/.ssh");
	NOMATCH(&t_linux, "/**/.ssh", "/a/b/.ssh/x");

	/* '*' and '?' inside one segment; '**' inside a segment is '*'. */
	MATCH(&t_linux, "/srv/*.txt", "/srv/a.txt");
	MATCH(&t_linux, "/srv/*.txt", "/srv/.txt");
	NOMATCH(&t_linux, "/srv/*.txt", "/srv/a/b.txt");
	MATCH(&t_linux, "/srv/a*b*c", "/srv/aXbYbZc");
	NOMATCH(&t_linux, "/srv/a*b*c", "/srv/aXbYbZ");
	MATCH(&t_linux, "/srv/?", "/srv/x");
	NOMATCH(&t_linux, "/srv/?", "/srv/xy");
	MATCH(&t_linux, "/srv/f?o", "/srv/f\xc3\xa9o");
	MATCH(&t_linux, "/srv/?", "/srv/\xc3\xa9");
	NOMATCH(&t_linux, "/srv/??", "/srv/\xc3\xa9");
	MATCH(&t_linux, "/srv/??", "/srv/e\xcc\x81");
	MATCH(&t_linux, "/srv/?", "/srv/\xf0\x9f\x98\x80");
	MATCH(&t_linux, "/srv/*?", "/srv/\xe2\x82\xac");
	MATCH(&t_linux, "/srv/*x?", "/srv/ax\xc3\xa9");
	MATCH(&t_linux, "/srv/a**b/c", "/srv/aXYb/c");
	NOMATCH(&t_linux, "/srv/a**b/c", "/srv/aX/Yb/c");
	MATCH(&t_linux, "/srv/[ab]", "/srv/[ab]");
	NOMATCH(&t_linux, "/srv/[ab]", "/srv/a");
	MATCH(&t_linux, "/srv/**/*.o", "/srv/x.o");
	MATCH(&t_linux, "/srv/**/*.o", "/srv/a/b/x.o");
	NOMATCH(&t_linux, "/srv/**/*.o", "/srv/a/b/x.c");
	MATCH(&t_linux, "/a/**/b/**/c", "/a/b/c");
	MATCH(&t_linux, "/a/**/b/**/c", "/a/x/b/y/b/z/c");
	NOMATCH(&t_linux, "/a/**/b/**/c", "/a/x/c/b");

	/* Case: folded on darwin and windows, ASCII only. */
	NOMATCH(&t_linux, "/Srv/Work", "/srv/work/x");
	MATCH(&t_darwin, "/Srv/Work", "/srv/WORK/x");
	MATCH(&t_windows, "C:\\Users\\*\\Desktop", "c:/users/bob/DESKTOP");
	MATCH(&t_darwin, "/srv/*.TXT", "/SRV/a.txt");
	NOMATCH(&t_darwin, "/srv/\xc3\x89", "/srv/\xc3\xa9");
	NOMATCH(&t_linux, "/srv/*.TXT", "/srv/a.txt");

	/* Queries: wildcards are characters, no expansion. */
	MATCH(&t_linux, "/srv/*", "/srv/*");
	MATCH(&t_linux, "/srv/a*", "/srv/a*b");
	MATCH(&t_linux, "/srv/x", "/srv/y/../x/z");
}

static void test_match_performance(void)
{
	struct diag_list diags;
	struct fs_pattern p;
	struct fs_path q;
	char path[2 * 600 + 8], seg[1200], pat[80], *err = NULL;
	bool m1, m2;
	int i;

	strcpy(path, "");
	for (i = 0; i < 600; i++)
		strcat(path, "/a");
	diag_list_init(&diags);
	if (fs_pattern_compile("/**/a/**/a/**/a/**/a/**/a/**/b", true, NULL,
			       &t_linux, &vs_unix, &p, &diags) ||
	    fs_path_parse(path, &t_linux, &q, &err)) {
		ok(0, "pathological pattern compiles");
		free(err);
		diag_list_free(&diags);
		return;
	}
	/* An exponential matcher would hang here; speed is for make bench. */
	m1 = fs_match(&p, &q);
	for (i = 0; i < 50; i++)
		m1 |= fs_match(&p, &q);
	fs_pattern_free(&p);
	fs_path_free(&q);
	memset(seg, 'a', sizeof(seg) - 1);
	seg[sizeof(seg) - 1] = '\0';
	strcpy(pat, "*a*a*a*a*a*a*a*a*a*a*b");
	m2 = fs_seg_glob_match(pat, strlen(pat), seg, strlen(seg));
	for (i = 0; i < 50; i++)
		m2 |= fs_seg_glob_match(pat, strlen(pat), seg, strlen(seg));
	ok(!m1 && !m2, "pathological patterns do not match");
	diag_list_free(&diags);
}

static void test_queries(void)
{
	struct fs_path q;
	char *err = NULL;
	char big[5000];

	if (ok(!fs_path_parse("/Srv//./Work/../Out/", &t_darwin, &q, &err),
	       "darwin query parses")) {
		is_str(q.text, "/Srv/Out", "query cleaned, case kept");
		is_int(q.nsegs, 2, "two segments");
		is_str(q.segs[1].s, "out", "query segments folded");
		is_int(q.segs[0].kind, SEG_LIT, "query segments are literal");
		fs_path_free(&q);
	}
	if (ok(!fs_path_parse("/a/*/../b", &t_linux, &q, &err),
	       "'..' after '*' is fine in a query")) {
		is_str(q.text, "/a/b", "query wildcard is a character");
		fs_path_free(&q);
	}
	if (ok(!fs_path_parse("/", &t_linux, &q, &err), "'/' parses")) {
		is_str(q.text, "/", "root text");
		is_int(q.nsegs, 0, "root has no segments");
		fs_path_free(&q);
	}
	if (ok(!fs_path_parse("/../..", &t_linux, &q, &err),
	       "'..' above the root")) {
		is_str(q.text, "/", "stays at the root");
		fs_path_free(&q);
	}
	if (ok(!fs_path_parse("C:\\Users\\Bob", &t_windows, &q, &err),
	       "windows query parses")) {
		is_str(q.text, "/c/Users/Bob", "windows query canonical");
		is_str(q.segs[2].s, "bob", "windows query folded");
		fs_path_free(&q);
	}
	ok(fs_path_parse("~/x", &t_linux, &q, &err) && strstr(err, "expanded"),
	   "'~' is not expanded in queries");
	free(err);
	err = NULL;
	ok(fs_path_parse("$HOME/x", &t_linux, &q, &err) &&
	   strstr(err, "not absolute"), "variables are not expanded");
	free(err);
	err = NULL;
	ok(fs_path_parse("x/y", &t_linux, &q, &err), "relative query fails");
	free(err);
	err = NULL;
	ok(fs_path_parse("/data/x", &t_windows, &q, &err) &&
	   strstr(err, "not on a drive"), "windows query without drive");
	free(err);
	err = NULL;
	ok(fs_path_parse("\\\\srv\\share", &t_windows, &q, &err) &&
	   strstr(err, "UNC"), "windows UNC query");
	free(err);
	err = NULL;
	memset(big, 'a', sizeof(big) - 1);
	big[0] = '/';
	big[sizeof(big) - 1] = '\0';
	ok(fs_path_parse(big, &t_linux, &q, &err) && strstr(err, "too long"),
	   "overlong query is an error, not truncated");
	free(err);
	err = NULL;
	big[4096] = '\0';
	ok(fs_path_parse(big, &t_linux, &q, &err) && strstr(err, "too long"),
	   "4096-byte query is an error");
	free(err);
	err = NULL;
	big[4095] = '\0';
	if (ok(!fs_path_parse(big, &t_linux, &q, &err),
	       "4095-byte query parses"))
		fs_path_free(&q);
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

/* Patterns and probe paths for the fs_covers soundness sweep. */
static const char *const sweep_patterns[] = {
	"/srv", "/srv/work", "/srv/work/**", "/srv/work/*", "/srv/*/x",
	"/srv/*/**", "/srv/**/x", "/srv/**/x/**", "/srv/w*", "/srv/w*/**",
	"/srv/work/a", "/srv/work/a/**", "/srv/work/a/b", "/srv/?ork",
	"/srv/?ork/**", "/srv/**", "/srv/work/**/b", "/srv/*/a/**",
	"/srv/*/*", "/srv/*/*/**", "**/x", "**/x/**", "**/work/**",
	"**/a/b", "/etc", "/etc/ssh/**", "/etc/ssh", "/etc/*/**",
	"/etc/s*/**", "/etc/ss?", "/Srv/Work", "/srv/WORK/**", "/**/x",
	"/srv/x*y", "/srv/*y", "/srv/**/**", "/srv/work/**/**",
	"/srv/*/x/**", "/srv/work/*.c", "/srv/**/*.c",
};

static const char *const sweep_paths[] = {
	"/", "/srv", "/srv/work", "/srv/work/a", "/srv/work/a/b",
	"/srv/work/a/b/c", "/srv/work/b", "/srv/work/x", "/srv/work/x/y",
	"/srv/works", "/srv/wx", "/srv/w", "/srv/x", "/srv/x/x",
	"/srv/x/y", "/srv/xy", "/srv/xzy", "/srv/y", "/srv/fork",
	"/srv/fork/a", "/srv/a/x", "/srv/a/b/x", "/srv/a/x/y", "/srv/a/a",
	"/srv/a/a/b", "/srv/work/m.c", "/srv/work/d/m.c", "/srv/m.c",
	"/etc", "/etc/ssh", "/etc/ssh/k", "/etc/ssl", "/etc/sss",
	"/etc/sshd", "/etc/x", "/etc/x/y", "/x", "/x/y", "/a/x",
	"/a/b", "/q/a/b", "/q/work/z", "/work/z", "/SRV/WORK",
	"/Srv/Work/a", "/srv/WORK/a", "/srv/Work", "/srv/work/b/b",
	"/srv/work/a/x", "/srv/work/**", "/srv/*", "/srv/*/x",
	"/srv/\xc3\xa9ork", "/srv/w\xc3\xa9", "/etc/ssh/a/b/c",
	"/srv/x/a", "/srv/x/a/b", "/srv/work/x/b", "/srv/b/a", "/opt",
};

static void sweep(const struct target_traits *t)
{
	struct fs_pattern pats[array_size(sweep_patterns)];
	struct fs_path paths[array_size(sweep_paths)];
	bool m[array_size(sweep_patterns)][array_size(sweep_paths)];
	struct diag_list diags;
	size_t i, j, k, proven = 0, bad = 0;
	char *err = NULL;

	diag_list_init(&diags);
	for (i = 0; i < array_size(sweep_patterns); i++)
		if (fs_pattern_compile(sweep_patterns[i], true, NULL, t,
				       &vs_unix, &pats[i], &diags))
			BUG("sweep pattern '%s'", sweep_patterns[i]);
	for (j = 0; j < array_size(sweep_paths); j++)
		if (fs_path_parse(sweep_paths[j], t, &paths[j], &err))
			BUG("sweep path '%s': %s", sweep_paths[j], err);
	for (i = 0; i < array_size(sweep_patterns); i++)
		for (j = 0; j < array_size(sweep_paths); j++)
			m[i][j] = fs_match(&pats[i], &paths[j]);
	for (i = 0; i < array_size(sweep_patterns); i++) {
		for (k = 0; k < array_size(sweep_patterns); k++) {
			if (!fs_covers(&pats[i], &pats[k]))
				continue;
			proven++;
			for (j = 0; j < array_size(sweep_paths); j++) {
				if (m[k][j] && !m[i][j]) {
					bad++;
					diag("'%s' claimed to cover '%s' but "
					     "misses '%s'", sweep_patterns[i],
					     sweep_patterns[k],
					     sweep_paths[j]);
				}
			}
		}
	}
	is_int(bad, 0, "%s: fs_covers is sound over %zu x %zu patterns and "
	       "%zu paths (%zu proofs)", t->name, array_size(sweep_patterns),
	       array_size(sweep_patterns), array_size(sweep_paths), proven);
	ok(proven > 2 * array_size(sweep_patterns),
	   "%s: the sweep proves more than identity", t->name);
	for (i = 0; i < array_size(sweep_patterns); i++)
		fs_pattern_free(&pats[i]);
	for (j = 0; j < array_size(sweep_paths); j++)
		fs_path_free(&paths[j]);
	diag_list_free(&diags);
}

static bool covers(const struct target_traits *t, const char *outer,
		   const char *inner)
{
	struct diag_list diags;
	struct fs_pattern a, b;
	bool c;

	diag_list_init(&diags);
	if (fs_pattern_compile(outer, true, NULL, t, &vs_unix, &a, &diags))
		BUG("covers: '%s'", outer);
	if (fs_pattern_compile(inner, true, NULL, t, &vs_unix, &b, &diags))
		BUG("covers: '%s'", inner);
	c = fs_covers(&a, &b);
	fs_pattern_free(&a);
	fs_pattern_free(&b);
	diag_list_free(&diags);
	return c;
}

#define COVERS(t, a, b) \
	ok(covers(t, a, b), "%s: '%s' covers '%s'", (t)->name, a, b)
#define NOT_COVERS(t, a, b) \
	ok(!covers(t, a, b), "%s: '%s' is not proven to cover '%s'", \
	   (t)->name, a, b)

static void test_covers(void)
{
	/* doc/rules.md §7 "Shadow analysis": the cases that must be proven. */
	COVERS(&t_linux, "/srv/work/secret", "/srv/work/secret");
	COVERS(&t_linux, "/srv/*/x", "/srv/*/x");
	COVERS(&t_linux, "/srv/work/**", "/srv/work");
	COVERS(&t_linux, "/srv/work/**", "/srv/work/secret");
	COVERS(&t_linux, "/srv/work/**", "/srv/work/a/*.c");
	COVERS(&t_linux, "/srv/work", "/srv/work/secret");
	COVERS(&t_linux, "/srv/work", "/srv/work/**");
	COVERS(&t_linux, "/srv/work", "/srv/work/*/x");
	/* More that soundness allows. */
	COVERS(&t_linux, "/srv/*/**", "/srv/work/x");
	COVERS(&t_linux, "/srv/w*/**", "/srv/work");
	COVERS(&t_linux, "/srv/*", "/srv/w*");
	COVERS(&t_linux, "**/.ssh/**", "**/.ssh/id_rsa");
	COVERS(&t_linux, "/**/x", "**/x");
	COVERS(&t_darwin, "/Srv/Work", "/srv/work/a");
	NOT_COVERS(&t_linux, "/Srv/Work", "/srv/work/a");
	NOT_COVERS(&t_linux, "/srv/work/**", "/srv");
	NOT_COVERS(&t_linux, "/srv/work", "/srv");
	NOT_COVERS(&t_linux, "/srv/*/x", "/srv/work/x/y");
	NOT_COVERS(&t_linux, "/srv/*", "/srv/work");
	NOT_COVERS(&t_linux, "/srv/w*", "/srv/*");
	NOT_COVERS(&t_linux, "/srv/*", "/srv/**");
	NOT_COVERS(&t_linux, "/srv/work/*", "/srv/work");
	sweep(&t_linux);
	sweep(&t_darwin);
}

static void test_resolve(void)
{
	char tmpl[] = "/tmp/test_fspath.XXXXXX", base[PATH_MAX];
	char *dir, *p, *got, *want;
	FILE *f;

	dir = mkdtemp(tmpl);
	if (!ok(dir && realpath(dir, base), "temporary directory"))
		return;
	p = xasprintf("%s/real", base);
	ok(mkdir(p, 0700) == 0, "mkdir real");
	free(p);
	p = xasprintf("%s/real/f", base);
	f = fopen(p, "w");
	ok(f && fclose(f) == 0, "create real/f");
	free(p);
	p = xasprintf("%s/link", base);
	ok(symlink("real", p) == 0, "symlink link -> real");
	free(p);
	p = xasprintf("%s/link/f", base);
	got = fs_path_resolve(p, true);
	want = xasprintf("%s/real/f", base);
	is_str(got, want, "follow resolves a link in the middle");
	free(got);
	got = fs_path_resolve(p, false);
	is_str(got, want, "no-follow resolves the parent chain");
	free(got);
	free(want);
	free(p);
	p = xasprintf("%s/link", base);
	got = fs_path_resolve(p, false);
	is_str(got, p, "no-follow keeps the last component");
	free(got);
	got = fs_path_resolve(p, true);
	want = xasprintf("%s/real", base);
	is_str(got, want, "follow resolves the last component");
	free(got);
	free(want);
	free(p);
	p = xasprintf("%s/link/nope/x", base);
	got = fs_path_resolve(p, true);
	want = xasprintf("%s/real/nope/x", base);
	is_str(got, want, "missing rest is appended");
	free(got);
	free(want);
	free(p);
	p = xasprintf("%s/real/f/x", base);
	got = fs_path_resolve(p, true);
	is_str(got, p, "a file used as a directory stays lexical");
	free(got);
	free(p);
	got = fs_path_resolve("/", true);
	is_str(got, "/", "root resolves to itself");
	free(got);
	got = fs_path_resolve("/nonexistent-vbox-test/a", false);
	is_str(got, "/nonexistent-vbox-test/a", "missing top level");
	free(got);
	got = fs_path_resolve("relative", true);
	ok(!got && errno == EINVAL, "relative path is refused");
	p = xasprintf("%s/real/f", base);
	unlink(p);
	free(p);
	p = xasprintf("%s/link", base);
	unlink(p);
	free(p);
	p = xasprintf("%s/real", base);
	rmdir(p);
	free(p);
	rmdir(base);
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
