# SPDX-License-Identifier: MIT
# tests/windows/enforce/setup.ps1 - run as an administrator on a real
# windows machine (the CI runner): make a fresh standard user, the
# directories the enforcement cases use, then run enforce.ps1 as that
# user and pass its TAP output and status on.  Hosted runners are
# administrators with UAC off, which would hide what a restricted token
# refuses, hence the standard user.
param(
	[Parameter(Mandatory = $true)] [string] $Bin,
	[Parameter(Mandatory = $true)] [string] $Plans
)
$ErrorActionPreference = 'Stop'

$user = 'vboxtest'
$pass = 'Vb!' + [guid]::NewGuid().ToString('N').Substring(0, 20)
net user $user $pass /add /y | Out-Null
$cred = New-Object System.Management.Automation.PSCredential(
	$user, (ConvertTo-SecureString $pass -AsPlainText -Force))

Remove-Item -Recurse -Force C:\vbx -ErrorAction SilentlyContinue
Remove-Item -Recurse -Force C:\vbxhole -ErrorAction SilentlyContinue
foreach ($d in 'work', 'work\secret', 'work\docs', 'work\other',
	'outside', 'fullctl', 'adminroot', 'adminonly', 'elsewhere', 'state',
	'out') {
	New-Item -ItemType Directory -Force "C:\vbx\$d" | Out-Null
}
Set-Content C:\vbx\work\secret\key.txt 'TOPSECRET'
Set-Content C:\vbx\work\docs\readme.txt 'README'
Set-Content C:\vbx\work\secret.txt 'FILESECRET'
Set-Content C:\vbx\work\notes.txt 'NOTES'
Set-Content C:\vbx\elsewhere\x.txt 'ELSEWHERE'
Set-Content C:\vbx\fullctl\keep.txt 'KEEP'
cmd /c mklink /J C:\vbx\work\jn C:\vbx\elsewhere | Out-Null
$long = 'C:\vbx\long\' + ('a' * 70) + '\' + ('b' * 70) + '\' + ('c' * 70) +
	'\' + ('d' * 70)
New-Item -ItemType Directory -Force "\\?\$long" | Out-Null

# The test user owns the work tree (as a user owns a checkout) and may
# modify C:\vbx\outside and has full control (FILE_DELETE_CHILD) of
# C:\vbx\fullctl, which no plan names; C:\vbx\adminroot and
# C:\vbx\adminonly stay Administrators' with Modify for the user, which
# lacks WRITE_DAC.  C:\vbxhole stays absent (driveroot.rules).
icacls C:\vbx /grant "${user}:(OI)(CI)RX" | Out-Null
# Under @default write rw every ancestor of a hole up to the drive is
# pinned, and a pin the user cannot write refuses the launch: C:\vbx
# itself (not what it holds) is the user's, as a folder the user made.
icacls C:\vbx /grant "${user}:F" | Out-Null
icacls C:\vbx\work /setowner $user /T | Out-Null
icacls C:\vbx\work /grant "${user}:(OI)(CI)F" | Out-Null
icacls C:\vbx\long /setowner $user /T | Out-Null
icacls C:\vbx\long /grant "${user}:(OI)(CI)F" | Out-Null
icacls C:\vbx\outside /grant "${user}:(OI)(CI)M" | Out-Null
icacls C:\vbx\fullctl /grant "${user}:(OI)(CI)F" | Out-Null
icacls C:\vbx\state /grant "${user}:(OI)(CI)F" | Out-Null
icacls C:\vbx\out /grant "${user}:(OI)(CI)F" | Out-Null
icacls C:\vbx\adminroot /grant "${user}:(OI)(CI)M" | Out-Null
icacls C:\vbx\adminonly /grant "${user}:(OI)(CI)M" | Out-Null
icacls $Bin /grant "${user}:(OI)(CI)RX" | Out-Null
icacls $Plans /grant "${user}:(OI)(CI)RX" | Out-Null
icacls $PSScriptRoot /grant "${user}:(OI)(CI)RX" | Out-Null

$psargs = @('-NoProfile', '-ExecutionPolicy', 'Bypass', '-File',
	"$PSScriptRoot\enforce.ps1", '-Bin', $Bin, '-Plans', $Plans)
$p = Start-Process powershell -Credential $cred -ArgumentList $psargs `
	-WorkingDirectory C:\vbx\out -Wait -PassThru -NoNewWindow `
	-RedirectStandardOutput C:\vbx\out\tap.txt `
	-RedirectStandardError C:\vbx\out\err.txt
Get-Content C:\vbx\out\tap.txt
Get-Content C:\vbx\out\err.txt | ForEach-Object { "# $_" }
net user $user /delete | Out-Null
if ($p.ExitCode -ne 0) { exit 1 }
if (Select-String -Path C:\vbx\out\tap.txt -Pattern '^not ok' -Quiet) {
	exit 1
}
exit 0
