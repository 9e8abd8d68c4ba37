; Inno Setup script: a per-user installer for Hearth (no administrator rights needed).
;
; Built by packaging/windows/build.sh (freeze, then installer), which the release workflow
; runs on Windows; the icon is drawn from resources/icons/hearth.svg by packaging/icons.py.
; The installer lands in dist\HearthSetup-<version>.exe.

#ifndef Version
  #define Version "0.1.0"
#endif

[Setup]
AppId={{6A4C1D1E-4E0B-4D5C-9C9A-2F0E2B6D4A11}
AppName=Hearth
AppVersion={#Version}
AppPublisher=Hearth
DefaultDirName={localappdata}\Programs\Hearth
DefaultGroupName=Hearth
PrivilegesRequired=lowest
OutputDir=..\..\dist
OutputBaseFilename=HearthSetup-{#Version}
Compression=lzma2
SolidCompression=yes
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
UninstallDisplayIcon={app}\hearth.exe
SetupIconFile=..\..\build\icons\hearth.ico
WizardStyle=modern

[Files]
Source: "..\..\dist\hearth\*"; DestDir: "{app}"; Flags: recursesubdirs createallsubdirs ignoreversion

[Icons]
Name: "{group}\Hearth"; Filename: "{app}\hearth.exe"
Name: "{group}\Uninstall Hearth"; Filename: "{uninstallexe}"
Name: "{userdesktop}\Hearth"; Filename: "{app}\hearth.exe"; Tasks: desktopicon

[Tasks]
Name: "desktopicon"; Description: "Create a desktop shortcut"; Flags: unchecked

[Run]
; The same end-to-end check the Linux packages run: window, worker, model, saved reply.  Not
; in a silent install (scripts, CI): those run the self-test themselves when they want it.
Filename: "{app}\hearth.exe"; Parameters: "--self-test"; Flags: runhidden waituntilterminated skipifsilent; StatusMsg: "Checking that Hearth works…"
Filename: "{app}\hearth.exe"; Description: "Start Hearth"; Flags: nowait postinstall skipifsilent

[UninstallDelete]
; Chats and settings live in the user's data folder and are kept on purpose.
Type: filesandordirs; Name: "{app}\_internal"
