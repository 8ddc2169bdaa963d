"""``gradguard server``: the checker as a language server (LSP over standard input and output).

Built on pygls / lsprotocol (the optional extra ``gradguard[lsp]``), which only this module
imports. Every check goes through the same pipeline as ``gradguard check``
(``run.pipeline.check_buffer``: the same adapters, rule selection, per-file-ignores and
``# noqa``), with the configuration of the nearest pyproject.toml above each document, and
the result cache of ``gradguard check`` for a file opened or saved as it is on disk.

- Diagnostics on open, on change (debounced: a burst of edits is checked once) and on save,
  with the rule's code, severity and a link to its documentation.
- Code actions: each finding's fix (unsafe ones labelled), "Disable GGnnn for this line"
  (``# noqa: GGnnn``), and ``source.fixAll.gradguard`` (every safe fix).
- Notebooks (LSP 3.17 notebook sync): the code cells are checked as one program in cell
  order; each cell gets its own findings.
- A document that does not parse gets a GG001 diagnostic; a bug in a rule is logged to the
  client; nothing stops the server but ``exit``.
"""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence, Union
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.workspace import TextDocument

from gradguard._version import __version__
from gradguard.check.config import Config, ConfigError, ConfigResolver, resolve
from gradguard.check.model import Applicability, Diagnostic, Edit, Fix, Severity
from gradguard.check.noqa import add_noqa_edits, noqa_row
from gradguard.check.report import severity_of
from gradguard.check.rules import PARSE_ERROR, all_rules
from gradguard.check.rules.base import Rule
from gradguard.check.run.pipeline import BufferCheck, RunResult, cache_key, check_buffer, finding_filter, open_cache
from gradguard.check.run.python import PythonDocument
from gradguard.check.source import SourceError, SourceText

SOURCE = "gradguard"
FIX_ALL_KIND = f"{types.CodeActionKind.SourceFixAll.value}.gradguard"
PYTHON_LANGUAGES = {"python", "python3", "ipython", "ipython3"}
PYTHON_SUFFIXES = (".py", ".pyi")
# Changes closer together than this are checked once, after the last: long enough for the
# messages an editor sends in a row (a paste, a multi-cursor edit, the edits queued while a
# check ran) to be read first, short enough not to show.
DEFAULT_DEBOUNCE_S = 0.02

log = logging.getLogger(__name__)


# -- positions ------------------------------------------------------------------------------


class PositionMap:
    """Converts gradguard's positions (1-based row, 1-based column in code points) and text
    offsets to LSP positions (0-based line, column in the negotiated code units) and back."""

    def __init__(self, text: str, encoding: str):
        self.source = SourceText(text)
        self.encoding = encoding

    def _units(self, text: str) -> int:
        if self.encoding == types.PositionEncodingKind.Utf32.value or text.isascii():
            return len(text)
        if self.encoding == types.PositionEncodingKind.Utf8.value:
            return len(text.encode("utf-8", "surrogatepass"))
        return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)

    def _line_body(self, row: int) -> str:
        return self.source.line(row).rstrip("\r\n")

    def position(self, row: int, column: int) -> types.Position:
        rows = len(self.source.line_starts)
        if row > rows:  # past the last line (the end of a file without a final newline)
            return types.Position(line=rows - 1, character=self._units(self._line_body(rows)))
        row = max(row, 1)
        body = self._line_body(row)
        return types.Position(line=row - 1, character=self._units(body[: max(column - 1, 0)]))

    def offset_position(self, offset: int) -> types.Position:
        pos = self.source.position(min(max(offset, 0), len(self.source.text)))
        return self.position(pos.row, pos.column)

    def offset(self, position: types.Position) -> int:
        """The text offset of an LSP position (clamped to the text)."""
        starts = self.source.line_starts
        if position.line >= len(starts):
            return len(self.source.text)
        body = self._line_body(position.line + 1)
        column = 0
        units = 0
        while column < len(body) and units < position.character:
            units += self._units(body[column])
            column += 1
        return starts[position.line] + column

    def range(self, d: Diagnostic) -> types.Range:
        return types.Range(start=self.position(d.start.row, d.start.column), end=self.position(d.end.row, d.end.column))

    def edits(self, edits: Sequence[Edit]) -> list[types.TextEdit]:
        return [
            types.TextEdit(
                range=types.Range(start=self.offset_position(e.start), end=self.offset_position(e.end)),
                new_text=e.content,
            )
            for e in edits
        ]


def minimal_edit(old: str, new: str) -> Edit:
    """One edit turning ``old`` into ``new``: the changed middle, common ends kept (so that the
    editor keeps cursors and folds outside it)."""
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    return Edit(prefix, len(old) - suffix, new[prefix : len(new) - suffix])


# -- documents ------------------------------------------------------------------------------


def uri_to_path(uri: str) -> Optional[str]:
    """The file system path of a ``file:`` URI; None for other schemes (unsaved buffers)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    path = unquote(parsed.path)
    if os.name == "nt" and path.startswith("/") and len(path) > 2 and path[2] == ":":
        path = path[1:]
    return os.path.normpath(path)


def lsp_severity(code: str) -> types.DiagnosticSeverity:
    """The rule's severity (``Rule.severity``), as the editor shows it."""
    if severity_of(code) is Severity.WARNING:
        return types.DiagnosticSeverity.Warning
    return types.DiagnosticSeverity.Error


@dataclass
class Checked:
    """The last check of a text document or a notebook, kept for code actions."""

    version: Optional[int]
    check: BufferCheck
    texts: dict[str, str]  # document URI -> the text that was checked
    cell_uris: dict[int, str] = field(default_factory=dict)  # notebooks: cell number -> cell URI


class GradguardProtocol(LanguageServerProtocol):
    """pygls's protocol, answering a request whose parameters cannot be read with an
    ``InvalidParams`` error (pygls only logs it, and the client would wait for ever)."""

    def structure_message(self, data: Any) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if isinstance(data, dict) and "method" in data and isinstance(data.get("id"), (int, str)):
                self._send_response(data["id"], error=exc.to_response_error())
            raise


class GradguardServer(LanguageServer):
    """Checks open documents and answers code actions; see the module docstring."""

    def __init__(self) -> None:
        super().__init__(
            "gradguard",
            __version__,
            protocol_cls=GradguardProtocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                notebook_selector=[
                    types.NotebookDocumentFilterWithCells(
                        notebook="jupyter-notebook", cells=[types.NotebookCellLanguage(language="python")]
                    )
                ],
                save=True,
            ),
        )
        self.debounce_s = DEFAULT_DEBOUNCE_S
        self.resolver = ConfigResolver(lambda file: resolve(all_rules(), file, cache=True), reload=True)
        self.rules: dict[Config, list[Rule]] = {}  # rule instances of each configuration
        self.checked: dict[str, Checked] = {}  # document or notebook URI -> last check
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.published_cells: dict[str, set[str]] = {}  # notebook URI -> cell URIs with diagnostics
        self.config_errors: set[str] = set()

    def report_server_error(self, error: Exception, source: Any) -> None:
        """A message the server could not read or handle: logged to the client's output, not
        shown as a pop-up (the editor sent it; the user can do nothing about it)."""
        self.window_log_message(
            types.LogMessageParams(type=types.MessageType.Error, message=f"gradguard server: {error!r}")
        )

    # -- configuration ----------------------------------------------------------------------

    def config_for(self, path: Optional[str]) -> Optional[tuple[Config, list[Rule]]]:
        """The document's configuration and rules, or None (an error was shown to the user)."""
        where = Path(path) if path else Path(self.workspace.root_path or os.getcwd())
        try:
            config = self.resolver.for_path(where)
        except ConfigError as exc:
            message = f"gradguard: {exc}"
            if message not in self.config_errors:
                self.config_errors.add(message)
                self.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=message))
            return None
        rules = self.rules.get(config)
        if rules is None:
            rules = self.rules[config] = config.make_rules()
        return config, rules

    # -- checking ---------------------------------------------------------------------------

    def schedule(self, uri: str, delay: Optional[float] = None) -> None:
        """Check ``uri`` (a text document or a notebook) after ``delay`` seconds, unless it
        changes again before then."""
        previous = self.pending.pop(uri, None)
        if previous is not None:
            previous.cancel()
        self.pending[uri] = asyncio.ensure_future(self._check_later(uri, self.debounce_s if delay is None else delay))

    async def _check_later(self, uri: str, delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        self.pending.pop(uri, None)
        self.check_and_publish(uri)

    def check_and_publish(self, uri: str, use_cache: bool = False) -> None:
        try:
            if self.workspace.get_notebook_document(notebook_uri=uri) is not None:
                self._check_notebook(uri)
            else:
                self._check_text_document(uri, use_cache)
        except Exception as exc:  # a bug in gradguard: logged, the server goes on
            log.exception("checking %s failed", uri)
            self.window_log_message(
                types.LogMessageParams(
                    type=types.MessageType.Error, message=f"gradguard: checking {uri} failed: {exc!r}"
                )
            )

    def _is_python(self, document: TextDocument) -> bool:
        path = uri_to_path(document.uri) or ""
        return (document.language_id or "python") in PYTHON_LANGUAGES or path.endswith(PYTHON_SUFFIXES)

    def _check_text_document(self, uri: str, use_cache: bool) -> None:
        document = self.workspace.text_documents.get(uri)
        if document is None or not self._is_python(document):
            return
        text = document.source
        path = uri_to_path(uri)
        found = self.config_for(path)
        if found is None:
            self.publish(uri, [], document.version)
            return
        config, rules = found
        name = path or uri
        check = self._cached(name, text, config, rules) if use_cache and path else None
        if check is None:
            check = check_buffer(name, config, rules, text=text)
            if use_cache and path:
                self._store(name, text, config, check)
        self._log_internal_errors(check)
        self.checked[uri] = Checked(document.version, check, {uri: text})
        positions = PositionMap(text, self.position_encoding)
        self.publish(uri, [self.lsp_diagnostic(d, positions) for d in check.diagnostics], document.version)

    def _cache_key(self, path: str, text: str, config: Config) -> Optional[tuple[Any, str]]:
        """(cache, key) for a buffer whose text is the file's on disk; None otherwise."""
        try:
            with open(path, "rb") as handle:
                data = handle.read()
            if SourceText.from_bytes(data).text != text:
                return None
        except (OSError, SourceError):
            return None
        cache = open_cache(config, RunResult())
        if cache is None:
            return None
        return cache, cache_key(cache, path, data, config)

    def _cached(self, path: str, text: str, config: Config, rules: list[Rule]) -> Optional[BufferCheck]:
        """The result ``gradguard check`` stored for this file, when the buffer is the file on
        disk. It has no document: fixing all checks the text afresh."""
        found = self._cache_key(path, text, config)
        if found is None:
            return None
        cache, key = found
        hit = cache.load(key, path)
        if hit is None:
            return None
        checked, diagnostics = hit
        keep = finding_filter(path, config, rules)
        return BufferCheck(diagnostics, keep, skipped=not checked)

    def _store(self, path: str, text: str, config: Config, check: BufferCheck) -> None:
        if check.internal_errors:
            return
        found = self._cache_key(path, text, config)
        if found is not None:
            cache, key = found
            cache.store(key, path, not check.skipped, check.diagnostics)

    def notebook_cells(self, uri: str) -> tuple[list[tuple[int, str]], dict[int, str], dict[str, str]]:
        """The notebook's code cells in order, as (cell number, text), with their URIs by
        number; every cell counts in the numbering (markdown too), as in ``gradguard check``."""
        notebook = self.workspace.get_notebook_document(notebook_uri=uri)
        cells: list[tuple[int, str]] = []
        uris: dict[int, str] = {}
        texts: dict[str, str] = {}
        if notebook is None:
            return cells, uris, texts
        for number, cell in enumerate(notebook.cells, start=1):
            if cell.kind != types.NotebookCellKind.Code:
                continue
            document = self.workspace.text_documents.get(cell.document)
            if document is None or (document.language_id or "python") not in PYTHON_LANGUAGES:
                continue
            text = document.source
            cells.append((number, text))
            uris[number] = cell.document
            texts[cell.document] = text
        return cells, uris, texts

    def _check_notebook(self, uri: str) -> None:
        notebook = self.workspace.get_notebook_document(notebook_uri=uri)
        if notebook is None:
            return
        cells, uris, texts = self.notebook_cells(uri)
        path = uri_to_path(uri)
        found = self.config_for(path)
        by_cell: dict[str, list[types.Diagnostic]] = {cell_uri: [] for cell_uri in uris.values()}
        if found is not None:
            config, rules = found
            check = check_buffer(path or uri, config, rules, cells=cells)
            self._log_internal_errors(check)
            self.checked[uri] = Checked(notebook.version, check, texts, uris)
            maps = {cell_uri: PositionMap(text, self.position_encoding) for cell_uri, text in texts.items()}
            for d in check.diagnostics:
                cell_uri = uris.get(d.cell or 0)
                if cell_uri is not None:
                    by_cell[cell_uri].append(self.lsp_diagnostic(d, maps[cell_uri]))
        stale = self.published_cells.get(uri, set()) - set(by_cell)
        for cell_uri in stale:
            self.publish(cell_uri, [], None)
        for cell_uri, diagnostics in by_cell.items():
            document = self.workspace.text_documents.get(cell_uri)
            self.publish(cell_uri, diagnostics, document.version if document is not None else None)
        self.published_cells[uri] = set(by_cell)

    def _log_internal_errors(self, check: BufferCheck) -> None:
        for failure in check.internal_errors:
            self.window_log_message(
                types.LogMessageParams(type=types.MessageType.Error, message=f"gradguard: {failure}")
            )

    @property
    def position_encoding(self) -> str:
        encoding = self.workspace.position_encoding
        return str(encoding.value if isinstance(encoding, types.PositionEncodingKind) else encoding or "utf-16")

    def lsp_diagnostic(self, d: Diagnostic, positions: PositionMap) -> types.Diagnostic:
        return types.Diagnostic(
            range=positions.range(d),
            message=d.message,
            severity=lsp_severity(d.code),
            code=d.code,
            code_description=types.CodeDescription(href=d.url),
            source=SOURCE,
        )

    def publish(self, uri: str, diagnostics: list[types.Diagnostic], version: Optional[int]) -> None:
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )

    def forget(self, uri: str) -> None:
        task = self.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        self.checked.pop(uri, None)

    # -- code actions -----------------------------------------------------------------------

    def current(self, uri: str) -> Optional[tuple[str, Checked]]:
        """(URI of the checked document or notebook, its check) for a document or cell URI,
        checked again if it changed since."""
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        owner = notebook.uri if notebook is not None else uri
        document = self.workspace.text_documents.get(uri)
        version = notebook.version if notebook is not None else (document.version if document else None)
        checked = self.checked.get(owner)
        if (
            checked is None
            or checked.version != version
            or (document is not None and checked.texts.get(uri) != document.source)
        ):
            self.forget(owner)
            self.check_and_publish(owner)
            checked = self.checked.get(owner)
        return (owner, checked) if checked is not None else None

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        found = self.current(uri)
        if found is None:
            return []
        owner, checked = found
        only = params.context.only
        actions: list[types.CodeAction] = []
        text = checked.texts.get(uri)
        if text is None:
            return []
        positions = PositionMap(text, self.position_encoding)
        if _wanted(types.CodeActionKind.QuickFix.value, only):
            cell_number = next((n for n, u in checked.cell_uris.items() if u == uri), None)
            # Findings on the lines of the range (an editor sends the cursor's position), and
            # those the client names.
            first, last = params.range.start.line + 1, params.range.end.line + 1
            named = {(x.code, x.range.start.line, x.range.start.character) for x in params.context.diagnostics}
            for d in checked.check.diagnostics:
                if d.cell != cell_number:
                    continue
                start = positions.position(d.start.row, d.start.column)
                on_lines = d.start.row <= last and d.end.row >= first
                if on_lines or (d.code, start.line, start.character) in named:
                    actions.extend(self._quick_fixes(d, uri, text, positions))
        if _wanted(FIX_ALL_KIND, only):
            fix_all = self._fix_all(owner, checked, uri)
            if fix_all is not None:
                actions.append(fix_all)
        return actions

    def _workspace_edit(self, edits: dict[str, list[types.TextEdit]]) -> types.WorkspaceEdit:
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=self._version(uri)),
                    edits=list(text_edits),
                )
                for uri, text_edits in edits.items()
            ]
        )

    def _version(self, uri: str) -> Optional[int]:
        document = self.workspace.text_documents.get(uri)
        return document.version if document is not None else None

    def _quick_fixes(self, d: Diagnostic, uri: str, text: str, positions: PositionMap) -> list[types.CodeAction]:
        lsp_diagnostic = self.lsp_diagnostic(d, positions)
        actions = []
        fix: Optional[Fix] = d.fix
        if d.cell is not None:
            mapped = d.extra.get("cell_fix")
            fix = mapped[1] if mapped is not None else None
        if fix is not None and fix.edits:
            unsafe = fix.applicability is Applicability.UNSAFE
            title = f"{d.code}: {fix.message}" + (" (unsafe)" if unsafe else "")
            actions.append(
                types.CodeAction(
                    title=title,
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[lsp_diagnostic],
                    is_preferred=not unsafe,
                    edit=self._workspace_edit({uri: positions.edits(fix.edits)}),
                )
            )
        if d.code != PARSE_ERROR:
            noqa = add_noqa_edits(text, {noqa_row(d): [d.code]})
            if noqa:
                actions.append(
                    types.CodeAction(
                        title=f"Disable {d.code} for this line",
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[lsp_diagnostic],
                        edit=self._workspace_edit({uri: positions.edits(noqa)}),
                    )
                )
        return actions

    def _fix_all(self, owner: str, checked: Checked, uri: str) -> Optional[types.CodeAction]:
        """Every safe fix of the document ``uri``, applied until stable as ``gradguard check
        --fix`` applies them. In a notebook the whole notebook is fixed and the edits of the
        cell ``uri`` returned (editors ask cell by cell)."""
        if not any(d.fixable_safe for d in checked.check.diagnostics):
            return None
        if checked.check.document is None:  # a result from the cache: check the text again
            self.forget(owner)
            self.check_and_publish(owner)
            again = self.checked.get(owner)
            if again is None or again.check.document is None:
                return None
            checked = again
        document = checked.check.document
        assert document is not None
        if document.fix(checked.check.keep, False) == 0:
            return None
        edits: dict[str, list[types.TextEdit]] = {}
        if isinstance(document, PythonDocument):
            old = checked.texts[owner]
            edits[owner] = PositionMap(old, self.position_encoding).edits([minimal_edit(old, document.text)])
        else:
            for number, new_text in getattr(document, "sources", {}).items():
                cell_uri = checked.cell_uris.get(number)
                if cell_uri != uri:
                    continue
                old = checked.texts[cell_uri]
                edits[cell_uri] = PositionMap(old, self.position_encoding).edits([minimal_edit(old, new_text)])
        # The document's check holds the fixed state now: check afresh next time.
        self.checked.pop(owner, None)
        if not edits:
            return None
        return types.CodeAction(
            title="gradguard: fix all safe fixes", kind=FIX_ALL_KIND, edit=self._workspace_edit(edits)
        )


def _wanted(kind: str, only: Optional[Sequence[Union[str, types.CodeActionKind]]]) -> bool:
    if not only:
        return True
    for item in only:
        value = item.value if isinstance(item, types.CodeActionKind) else str(item)
        if kind == value or kind.startswith(value + "."):
            return True
    return False


def create_server() -> GradguardServer:
    server = GradguardServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: GradguardServer, params: types.InitializeParams) -> None:
        options = params.initialization_options
        if isinstance(options, dict):
            debounce = options.get("debounce_ms")
            if isinstance(debounce, (int, float)) and not isinstance(debounce, bool) and debounce >= 0:
                ls.debounce_s = debounce / 1000

    @server.feature(types.INITIALIZED)
    async def initialized(ls: GradguardServer, params: types.InitializedParams) -> None:
        capabilities = ls.client_capabilities.workspace
        watched = capabilities.did_change_watched_files if capabilities is not None else None
        if watched is None or not watched.dynamic_registration:
            return
        watcher = types.FileSystemWatcher(glob_pattern="**/pyproject.toml")
        registration = types.Registration(
            id="gradguard-pyproject",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=[watcher]),
        )
        try:
            await ls.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
        except Exception as exc:  # the client refused: configuration changes show on the next edit
            log.info("could not watch pyproject.toml files: %s", exc)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: GradguardServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)
        ls.check_and_publish(params.text_document.uri, use_cache=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: GradguardServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(ls: GradguardServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)
        ls.check_and_publish(params.text_document.uri, use_cache=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: GradguardServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)
        ls.publish(params.text_document.uri, [], None)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_open(ls: GradguardServer, params: types.DidOpenNotebookDocumentParams) -> None:
        ls.check_and_publish(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_change(ls: GradguardServer, params: types.DidChangeNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_save(ls: GradguardServer, params: types.DidSaveNotebookDocumentParams) -> None:
        ls.forget(params.notebook_document.uri)
        ls.check_and_publish(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_close(ls: GradguardServer, params: types.DidCloseNotebookDocumentParams) -> None:
        uri = params.notebook_document.uri
        ls.forget(uri)
        for cell_uri in ls.published_cells.pop(uri, set()):
            ls.publish(cell_uri, [], None)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files(ls: GradguardServer, params: types.DidChangeWatchedFilesParams) -> None:
        # A pyproject.toml changed: check every open document again with its configuration.
        ls.config_errors.clear()
        for uri in list(ls.checked):
            ls.forget(uri)
            ls.check_and_publish(uri)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND], resolve_provider=False
        ),
    )
    def code_action(ls: GradguardServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return ls.code_actions(params)

    return server


def main(argv: Optional[list[str]] = None) -> int:
    """Serve over standard input and output until the client says ``exit``."""
    logging.basicConfig(level=logging.WARNING, format="gradguard server: %(levelname)s: %(message)s")
    create_server().start_io()
    return 0
