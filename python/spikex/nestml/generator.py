"""From a NESTML file to the C++ of a spikex model library.

NESTML's own front end does the language: its parser and context conditions (CoCos), its
model transformers (inline expressions, convolutions to state variables) and ODE-toolbox's
analysis (exact propagators for linear dynamics). spikex drives them through NESTML's
public API (``pynestml.frontend``, the transformers and ``NESTCodeGenerator``'s analysis,
which NESTML's own Python stand-alone target reuses the same way) and writes the C++ with
its own template (``templates/model.cpp.jinja2``) and printer (``printer.py``): no NESTML
template or code is copied, and NESTML (GPL-2.0) is a build-time tool, never linked.

What the generator does not support is refused with :class:`UnsupportedFeature`, naming
the feature; a model NESTML itself rejects raises :class:`NestmlError` with NESTML's
messages (file and line).
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from ..errors import UserInputError
from .pinned import NESTML_VERSION
from .printer import ExpressionPrinter, LanesPrinter, NotLanes, Unsupported, unit_factor

TEMPLATE_DIR = Path(__file__).parent / "templates"


class NestmlError(UserInputError):
    """NESTML refused the model: its own messages, each with file and line."""


class UnsupportedFeature(UserInputError):
    """The model uses a NESTML feature spikex's generator does not support yet."""


@dataclass
class Value:
    name: str
    unit: str = "1"
    meaning: str = ""
    default_cpp: str = "0.0"  # in terms of d.<parameter> (the defaults)
    rule: str = ""  # NESTML's default expression when it is not a number
    rule_cpp: str = ""  # the same in terms of p.<parameter>
    range: str = "ranges::any()"
    settable: bool = True
    ctype: str = "double"  # a state variable's C++ type (NESTML's real, integer, boolean)
    needs_internals: bool = False  # an initial value that follows internals
    cpp: str = ""  # where a state variable lives in cell_state (its name, or ode[k])

    def __post_init__(self):
        self.cpp = self.cpp or self.name


@dataclass
class Internal:
    name: str
    cpp: str


@dataclass
class Port:
    name: str
    # Whether a step needs to know that a spike came (got_<port>): false where nothing reads
    # it, or every onReceive block of the port only adds a multiple of the port's input
    # (adding 0 without a spike is the same, up to the sign of a zero).
    flagged: bool = True


@dataclass
class Model:
    name: str
    source: str
    description: str = ""
    parameters: list[Value] = field(default_factory=list)
    initial_values: list[Value] = field(default_factory=list)
    state: list[Value] = field(default_factory=list)
    internals: list[Internal] = field(default_factory=list)
    spike_ports: list[Port] = field(default_factory=list)
    port_mode: str = "none"  # "none", "single" (the weight's sign kept), "pair" (exc, inh), "ports" (receptor types)
    current_port: str | None = None
    default_lines: list[str] = field(default_factory=list)
    init_lines: list[str] = field(default_factory=list)
    step_lines: list[str] = field(default_factory=list)
    # step_lines with the current input's terms left out, for steps without a current
    # (empty: step_lines serve both)
    step_lines_without_current: list[str] = field(default_factory=list)
    receptors: str = ""
    invariants: list = field(default_factory=list)  # (parameter, C++ condition, NESTML text)
    constants: list[Internal] = field(default_factory=list)  # per-set subexpressions of the step
    internal_invariants: list = field(default_factory=list)  # (internal, C++ condition, text)
    defaults_need_internals: bool = False
    uses_random: bool = False  # random_normal, ... (the cell's counter-based stream)
    integration: str = "exact (ODE-toolbox's propagators)"
    numeric: list[str] = field(default_factory=list)  # the numeric solver's state (its order)
    # numeric models whose cells are integrated side by side (advance_cells): the step in
    # three passes, the update block up to its integrate_odes() call (pre_lines), every
    # cell's integration, the rest (step_lines); the variants' derivative masks
    lanes: bool = False
    pre_lines: list[str] = field(default_factory=list)
    lanes_rhs: list[str] = field(default_factory=list)  # f[k]'s expression, generic in L
    variant_masks: list[list[bool]] = field(default_factory=list)  # [variant][k]: f[k] computed
    masked: list[int] = field(default_factory=list)  # the k whose f[k] some variant zeroes
    kept: int = 0  # values per cell carried from the first pass to the third


def _check_version() -> None:
    import pynestml

    if pynestml.__version__ != NESTML_VERSION:
        raise UserInputError(
            f"spikex's NESTML generator is written for NESTML {NESTML_VERSION}, "
            f"this environment has {pynestml.__version__}: pip install 'spikex[nestml]'"
        )


def analyse(path: str | os.PathLike) -> tuple[object, dict, dict]:
    """Parses, checks and transforms one NESTML file with NESTML's front end.

    Returns
    -------
    (model, metadata, namespace)
        NESTML's transformed model, its metadata (ODE-toolbox's solver) and the
        analysis NESTML's NEST target renders from (update expressions, spike updates).

    Raises
    ------
    NestmlError
        NESTML refused the file (its messages, with file and line).
    UnsupportedFeature
        More than one model in the file, a synapse model.
    """
    _check_version()
    from pynestml.cocos.co_cos_manager import CoCosManager
    from pynestml.codegeneration.code_generator import CodeGenerator
    from pynestml.codegeneration.nest_code_generator import NESTCodeGenerator
    from pynestml.frontend.pynestml_frontend import (
        configure_front_end,
        get_parsed_models,
        transform_models,
        transformers_from_target_name,
    )
    from pynestml.utils.logger import Logger

    path = Path(path).resolve()
    if not path.is_file():
        raise UserInputError(f"NESTML model {path}: no such file")
    workdir = tempfile.mkdtemp(prefix="spikex-nestml-")
    configure_front_end(
        str(path), "NONE", target_path=workdir, logging_level="ERROR", module_name="spikexmodule"
    )
    Logger.no_print = True  # NESTML's messages are collected (_errors), not printed
    # The parser and the checks; an error stops here with NESTML's messages.
    models = get_parsed_models()
    for model in models:
        if not Logger.has_errors(model):
            CoCosManager.check_cocos(model)
    errors = _errors(Logger, path)
    if errors or not models:
        raise NestmlError("\n".join(errors) or f"{path}: no model found")
    if len(models) != 1:
        raise UnsupportedFeature(f"{path}: more than one model in one file")
    model = models[0]
    if model.get_name().endswith("synapse"):
        raise UnsupportedFeature(f"{path}: synapse models (only neuron models are generated)")
    # NESTML's transformers for a C++ target (C++ keywords renamed, inline expressions
    # expanded, convolutions to state variables, ODE-toolbox's analysis).
    transformers, _ = transformers_from_target_name("NEST", {})
    models, metadata = transform_models(transformers, [model])
    model = models[0]

    class _Analysis(NESTCodeGenerator):
        # NEST's code generator's analysis (propagators into internals, update
        # expressions parsed, spike updates), without its templates.
        def __init__(self):
            CodeGenerator.__init__(
                self,
                {
                    **NESTCodeGenerator._default_options,
                    "nest_version": "v3.10",
                    "templates": {
                        "path": str(TEMPLATE_DIR),
                        "model_templates": {"neuron": ["model.cpp.jinja2"]},
                        "module_templates": [],
                    },
                },
            )
            self.non_equations_state_variables = {}
            self.setup_printers()

    analysis = _Analysis()
    try:
        analysis.run_nest_target_specific_cocos([model], [])
        analysis.analyse_transform_neurons([model], metadata)
        namespace = analysis._get_neuron_model_namespace(model, metadata)
    except Exception as error:  # noqa: BLE001 (NESTML's checks raise after logging)
        errors = _errors(Logger, path)
        raise NestmlError("\n".join(errors) or f"{path}: {error}") from None
    errors = _errors(Logger, path)
    if errors:
        raise NestmlError("\n".join(errors))
    return model, metadata, namespace


def _errors(logger, path: Path) -> list[str]:
    """NESTML's logged errors as "file:line:column: message" (NESTML's own wording)."""
    from pynestml.utils.logger import LoggingLevel

    out = []
    for record in getattr(logger, "log", {}).values():
        try:
            _unit, _model, record_level, _code, position, message = record
        except (TypeError, ValueError):
            continue
        if record_level != LoggingLevel.ERROR:
            continue
        where = str(path)
        if position is not None and getattr(position, "start_line", None) is not None:
            where += f":{position.start_line}:{position.start_column}"
        out.append(f"{where}: {message}")
    return out


# --- from NESTML's analysis to the template's model -------------------------------------

_NEST_UNIT = {
    "electrical potential": "mV",
    "time": "ms",
    "electrical current": "pA",
    "electrical capacitance": "pF",
    "electrical conductance": "nS",
    "electrical resistance": "GOhm",
}


def _unit_text(data_type) -> str:
    """The unit of a declared type as spikex's tables name it (NEST's units)."""
    from pynestml.symbols.unit_type_symbol import UnitTypeSymbol

    symbol = data_type.get_type_symbol()
    if not isinstance(symbol, UnitTypeSymbol):
        return "1"
    unit = symbol.unit.unit
    if unit_factor(symbol) == 1 and unit.physical_type in _NEST_UNIT:
        return _NEST_UNIT[unit.physical_type]
    parts = []
    for base, power in zip(unit.bases, unit.powers):
        name = _NEST_UNIT.get(str(base.physical_type), "s" if str(base) == "s" else str(base))
        if str(base) == "s":
            name = "ms"
        parts.append(name if power == 1 else f"{name}^{power:g}")
    return "*".join(parts) if parts else "1"


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _meaning(decl, name: str, what: str) -> str:
    text = (getattr(decl, "in_comment", None) or "").strip()
    if not text:
        pre = [c.strip() for c in (getattr(decl, "pre_comments", None) or []) if c.strip()]
        text = pre[-1] if pre else ""
    text = text or f"{what} {name}"
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _is_number(expr) -> bool:
    from pynestml.meta_model.ast_simple_expression import ASTSimpleExpression

    if isinstance(expr, ASTSimpleExpression):
        return expr.is_numeric_literal() or expr.is_numeric_literal_with_unit()
    if (
        getattr(expr, "is_unary_operator", lambda: False)()
        and expr.get_unary_operator().is_unary_minus
    ):
        return _is_number(expr.get_expression())
    if getattr(expr, "is_encapsulated", False):
        return _is_number(expr.get_expression())
    return False


def _declarations(blocks):
    for block in blocks or []:
        for decl in block.get_declarations():
            for variable in decl.get_variables():
                yield decl, variable


_CTYPE = {"real": "double", "integer": "long", "boolean": "bool"}
_RANGE = {
    "real": "ranges::any()",
    "integer": "value_range{.integer = true}",
    "boolean": "ranges::flag()",
}


def _type_kind(data_type) -> str:
    if data_type.is_boolean:
        return "boolean"
    if data_type.is_integer:
        return "integer"
    if getattr(data_type, "is_string", False):
        raise Unsupported("string variables")
    return "real"


def build_model(model, metadata: dict, namespace: dict, source: str) -> Model:
    """The template's view of a transformed NESTML model; Unsupported for what is not."""
    name = model.get_name()
    m = Model(name=name, source=source)
    numeric = (
        list(namespace.get("numeric_state_variables") or [])
        if namespace.get("uses_numeric_solver")
        else []
    )
    if numeric and namespace.get("numeric_solver", "rk45") != "rk45":
        raise Unsupported(f"the numeric solver {namespace.get('numeric_solver')}")
    m.numeric = numeric
    functions = {f.get_name(): f for f in model.get_functions()}
    for decl, _variable in _declarations(
        model.get_parameters_blocks() + model.get_state_blocks() + model.get_internals_blocks()
    ):
        if decl.get_size_parameter() is not None:
            raise Unsupported("vector variables")
        if getattr(decl, "get_decorators", list)():
            raise Unsupported("decorated declarations (@homogeneous, @heterogeneous)")
    if model.has_delay_variables():
        raise Unsupported("delay differential equations")

    parameter_names = [v.get_name() for _d, v in _declarations(model.get_parameters_blocks())]
    state_decls = list(_declarations(model.get_state_blocks()))
    state_names = [v.get_name() for _d, v in state_decls]
    internal_decls = list(_declarations(model.get_internals_blocks()))
    internal_names = [v.get_name() for _d, v in internal_decls]
    if "tau_minus" in parameter_names + state_names + internal_names:
        raise Unsupported("a variable named tau_minus (spikex's STDP parameter of every neuron)")
    # Internals that read a state variable (`alpha_n_init = ... V_m ...`): NEST computes them
    # from the state as it is when the cell is made, and the library's models read them in
    # state initial values only. Written in place there (from each cell's initial state);
    # anywhere else they are refused.
    # (by name in the expression's text: get_variables() skips function arguments)
    state_word = re.compile(r"\b(" + "|".join(map(re.escape, state_names)) + r")\b") if state_names else None
    reads_state = lambda e: state_word is not None and state_word.search(str(e)) is not None  # noqa: E731
    # Parameters whose default reads the state (hh_cond_exp_destexhe's alpha_n_init = f(V_m)):
    # in the library, gating rates at the initial V_m that state initial values read. They
    # are computed the same way, from each cell's initial state, and are not settable.
    parameter_decls = list(_declarations(model.get_parameters_blocks()))
    initial_only = {
        v.get_name(): d.get_expression()
        for d, v in [*internal_decls, *parameter_decls]
        if d.get_expression() is not None and reads_state(d.get_expression())
    }
    initial_printers: dict[str, ExpressionPrinter] = {}  # "init" (per cell), "default" (the table's)

    # Inputs.
    spike_ports, continuous = [], []
    for block in model.get_input_blocks():
        for port in block.get_input_ports():
            if port.get_size_parameter() is not None:
                raise Unsupported("vector input ports")
            if port.is_spike():
                spike_ports.append(port)
            else:
                continuous.append(port)
    if len(continuous) > 1:
        raise Unsupported("more than one continuous input port")
    m.current_port = continuous[0].get_name() if continuous else None
    if len(spike_ports) == 1:
        m.port_mode = "single"
        m.spike_ports = [Port(spike_ports[0].get_name())]
    elif len(spike_ports) >= 2:
        exc = [p for p in spike_ports if p.is_excitatory() and not p.is_inhibitory()]
        inh = [p for p in spike_ports if p.is_inhibitory() and not p.is_excitatory()]
        if len(spike_ports) == 2 and len(exc) == 1 and len(inh) == 1:
            m.port_mode = "pair"
            m.spike_ports = [Port(exc[0].get_name()), Port(inh[0].get_name())]
        else:
            # Receptor types, NEST's receptor_type 1, 2, ... in the order the input block
            # declares the ports (NESTML's NEST target numbers them so).
            m.port_mode = "ports"
            m.spike_ports = [Port(p.get_name()) for p in spike_ports]
    port_names = {p.name for p in m.spike_ports}

    locals_: set[str] = set()
    numeric_index = {v: k for k, v in enumerate(numeric)}
    numeric_y = [False]  # while printing a right-hand side: numeric states are y[k]

    def resolver(prefix_of):
        def resolve(var: str) -> tuple[str, Fraction]:
            if var in locals_:
                return f"l_{var}", Fraction(1)
            if var in initial_only:
                printer = initial_printers.get(prefix_of("initial_only") or "")
                if printer is None:
                    raise Unsupported(
                        f"parameters or internals that read a state variable ({var}) outside state initial values"
                    )
                return f"({printer.print(initial_only[var])})", Fraction(1)
            if var in port_names:
                return f"in_{var}", _port_factor(model, var)
            if var == m.current_port:
                return "stim", _continuous_factor(model, var)
            if var in numeric_index:
                if numeric_y[0]:
                    return f"y[{numeric_index[var]}]", Fraction(1)
                if prefix_of("state") == "s":
                    return f"s.ode[{numeric_index[var]}]", Fraction(1)
            if numeric_y[0] == "lanes" and var not in parameter_names + internal_names:
                raise NotLanes(var)
            kind = (
                "state" if var in state_names or var in namespace.get("analytic_state_variables", [])
                or var in numeric
                else "parameter" if var in parameter_names
                else "internal" if var in internal_names
                else None
            )  # fmt: skip
            if kind is None:
                if var == "t":
                    return "(double(n) * q.__h)", Fraction(1)
                raise Unsupported(f"the variable {var}")
            prefix = prefix_of(kind)
            if prefix is None:
                raise Unsupported(f"{kind} {var} in this expression")
            return f"{prefix}.{var}", Fraction(1)

        return resolve

    # Parameters: defaults in declaration order (d.), rules (p.), invariants ([[...]]).
    defaults = ExpressionPrinter(resolver(lambda k: "d" if k == "parameter" else None), functions=functions)
    given = ExpressionPrinter(resolver(lambda k: "p" if k == "parameter" else None), functions=functions)
    for decl, variable in parameter_decls:
        if variable.get_name() in initial_only:
            continue  # written in place where read (state initial values)
        kind = _type_kind(decl.get_data_type())
        expr = decl.get_expression()
        try:
            default_cpp = defaults.print(expr)
        except Unsupported as what:
            if not str(what).startswith("state "):
                raise
            raise Unsupported(
                "parameters whose default reads a state variable "
                f"({variable.get_name()} reads {str(what).split()[1]})"
            ) from None
        value = Value(
            name=variable.get_name(),
            unit=_unit_text(decl.get_data_type()),
            meaning=_meaning(decl, variable.get_name(), "parameter"),
            default_cpp=default_cpp,
        )
        value.range = _RANGE[kind]
        if not _is_number(expr):
            value.rule = _escaped(str(expr))
            value.rule_cpp = given.print(expr)
        m.parameters.append(value)
        m.default_lines.append(f"d.{value.name} = {value.default_cpp};")
        if decl.get_invariant() is not None:
            m.invariants.append(
                (value.name, given.print(decl.get_invariant()), _escaped(str(decl.get_invariant())))
            )

    if numeric:
        # NESTML's NEST target's tolerances of its GSL RKF45 step control (its parameters
        # gsl_abs_error_tol and gsl_rel_error_tol, "with_respect_to_solution")
        for tol, default, cond, text in (
            ("gsl_abs_error_tol", "1e-06", "p.gsl_abs_error_tol > 0.0", "gsl_abs_error_tol > 0"),
            ("gsl_rel_error_tol", "1e-06", "p.gsl_rel_error_tol >= 0.0", "gsl_rel_error_tol >= 0"),
        ):
            if tol in parameter_names + state_names + internal_names:
                raise Unsupported(f"a variable named {tol} (the numeric solver's tolerance)")
            kind = "absolute" if "abs" in tol else "relative"
            m.parameters.append(
                Value(
                    name=tol,
                    meaning=f"the numeric solver's {kind} error bound per sub-step (NESTML's NEST target)",
                    default_cpp=default,
                    range="ranges::any()",
                )
            )
            m.default_lines.append(f"d.{tol} = {default};")
            m.invariants.append((tol, cond, text))

    # State: the declared variables (their initial values are parameters, as NEST's V_m)
    # and the ones NESTML added (convolutions), which start from ODE-toolbox's values. An
    # initial value may follow parameters (a rule applied when parsing) or internals
    # (dt-dependent: applied per cell when the group is built, unless given).
    initial_values = namespace.get("initial_values", {})
    analytic = namespace.get("analytic_state_variables", [])
    with_internals = ExpressionPrinter(
        resolver(lambda k: {"parameter": "p", "internal": "q", "state": "s", "initial_only": "init"}.get(k)),
        functions=functions,
    )
    # the table's defaults: a state read here is its initial value's default (d.V_m)
    default_with_internals = ExpressionPrinter(
        resolver(lambda k: {"parameter": "d", "internal": "dq", "state": "d", "initial_only": "default"}.get(k)),
        functions=functions,
    )
    initial_printers.update(init=with_internals, default=default_with_internals)
    for decl, variable in state_decls:
        kind = _type_kind(decl.get_data_type())
        expr = decl.get_expression()
        value = Value(
            name=variable.get_name(),
            unit=_unit_text(decl.get_data_type()),
            meaning=_meaning(decl, variable.get_name(), "state variable"),
            range=_RANGE[kind],
            ctype=_CTYPE[kind],
        )
        if value.name in numeric_index:
            value.cpp = f"ode[{numeric_index[value.name]}]"
        init = Value(
            name=value.name,
            unit=value.unit,
            meaning=f"initial value: {value.meaning}",
            range=value.range,
        )
        try:
            init.default_cpp = defaults.print(expr)
            if not _is_number(expr):
                init.rule = _escaped(str(expr))
                init.rule_cpp = given.print(expr)
            m.init_lines.append(f"s.{value.cpp} = static_cast<{value.ctype}>(p.{value.name});")
        except Unsupported:  # follows internals: at dt = 0.1 ms for the table's default
            init.default_cpp = default_with_internals.print(expr)
            init.rule = _escaped(
                f"{expr} (internals at the run's dt; the default shown at dt = 0.1 ms)"
            )
            init.needs_internals = True
            if not m.defaults_need_internals:
                m.default_lines.append("const internals dq = compute_internals(d, 0.1);")
            m.defaults_need_internals = True
            m.init_lines.append(
                f"s.{value.cpp} = static_cast<{value.ctype}>(p.given_{value.name} ? p.{value.name} : "
                f"{with_internals.print(expr)});"
            )
        m.state.append(value)
        m.initial_values.append(init)
        m.default_lines.append(f"d.{init.name} = {init.default_cpp};")
    from pynestml.utils.model_parser import ModelParser

    added = list(dict.fromkeys(v for v in analytic + numeric if v not in state_names))
    if added:
        scope = model.get_equations_blocks()[0].get_scope()
        for var in added:
            m.state.append(
                Value(
                    name=var,
                    meaning=f"convolution state {var} (NESTML)",
                    settable=False,
                    cpp=f"ode[{numeric_index[var]}]" if var in numeric_index else "",
                )
            )
        state_names.extend(added)
        for var in added:
            expr = ModelParser.parse_expression(str(initial_values.get(var, "0")))
            expr.update_scope(scope)
            m.init_lines.append(f"{with_internals.resolve(var)[0]} = {with_internals.print(expr)};")

    # Internals in declaration order (the propagators are among them).
    internal_printer = ExpressionPrinter(
        resolver(lambda k: {"parameter": "p", "internal": "q"}.get(k)), functions=functions
    )
    # __h (the step, NESTML's transformer adds it) first: steps(), resolution() and the
    # propagators read it, wherever the model declares its own internals.
    internal_decls.sort(key=lambda dv: dv[1].get_name() != "__h")
    for decl, variable in internal_decls:
        var = variable.get_name()
        expr = decl.get_expression()
        if var in initial_only:
            continue  # written in place where read (above)
        if var == "__h":
            cpp = "h"
        else:
            try:
                cpp = internal_printer.print(expr)
            except Unsupported as what:
                if not str(what).startswith("state "):
                    raise
                raise Unsupported(
                    f"internals that read a state variable ({var} reads {str(what).split()[1]})"
                ) from None
        m.internals.append(Internal(var, cpp))
        if decl.get_invariant() is not None:
            m.internal_invariants.append(
                (
                    var,
                    internal_printer.print(decl.get_invariant()),
                    _escaped(str(decl.get_invariant())),
                )
            )

    # The step.
    constants: dict[str, str] = {}  # per-set subexpressions (C++) -> their internal's name

    def hoist(code: str) -> str:
        if code not in constants:
            constants[code] = f"k_{len(constants)}"
            m.constants.append(Internal(constants[code], code))
        return f"q.{constants[code]}"

    def random(name: str) -> str:
        m.uses_random = True
        return "seed_, gids_[i], n, draw"

    step = ExpressionPrinter(
        resolver(lambda k: {"parameter": "p", "internal": "q", "state": "s"}[k]), hoist, random, functions
    )
    update_expressions = namespace.get("update_expressions", {})
    numeric_update_expressions = namespace.get("numeric_update_expressions", {})
    spike_updates = namespace.get("spike_updates", {})
    convolutions = [v for v in analytic if "__X__" in v]

    def assignment(a) -> str:
        lhs_name = a.get_variable().get_complete_name()
        lhs, factor = step.resolve(lhs_name)
        if factor != 1 or lhs.startswith("in_") or lhs == "stim":
            raise Unsupported(f"assigning to the input port {lhs_name}")
        rhs = step.print(a.get_expression())
        op = "=" if a.is_direct_assignment else (
            "+=" if a.is_compound_sum else "-=" if a.is_compound_minus
            else "*=" if a.is_compound_product else "/="
        )  # fmt: skip
        if lhs.startswith(("p.", "q.")):
            raise Unsupported(f"assigning to the parameter or internal {lhs_name} during the run")
        return f"{lhs} {op} {rhs};"

    def integrate(call) -> list[str]:
        args = [str(a) for a in call.get_args()]
        variables = [v for v in analytic if "__X__" not in v and (not args or v in args)]
        lines = ["{"]
        for v in variables:
            lines.append(f"    const double next_{v} = {step.print(update_expressions[v])};")
        for v in variables:
            lines.append(f"    s.{v} = next_{v};")
        for updates in spike_updates.values():
            for a in updates:
                target = a.get_variable().get_complete_name()
                if "__X__" not in target and target in variables:
                    lines.append("    " + assignment(a))
        lines.append("}")
        return lines

    convolution_names = [v for v in state_names if "__X__" in v]

    def filtered(variables: list[str], args: list[str]) -> list[str]:
        # NESTML's ASTUtils.filter_variables_list: the listed ones and their derivatives
        out = []
        for var in variables:
            if var in args:
                out.append(var)
                out.extend(
                    v for v in variables if v.count("__d") > 0 and v.split("__d")[0] == var
                    and v not in args
                )  # fmt: skip
        return out

    # The lanes pass (m.lanes): what each integrate_odes() call leaves for the third pass.
    lanes_on = [False]
    variants: list[tuple[list[bool], list[str]]] = []  # (f[k] computed, the lines after it)

    def exact_and_integrated(call) -> tuple[list[str], list[str], list[bool]]:
        args = [str(a) for a in call.get_args()]
        exact = [v for v in analytic if "__X__" not in v or "__for_" in v]
        if args:
            exact = filtered(exact, args)
        integrated = filtered(numeric, args) if args else list(numeric)
        active = [not args or v in integrated or v in convolution_names for v in numeric]
        return exact, integrated, active

    def numeric_spike_updates(exact: list[str], integrated: list[str]) -> list[str]:
        out = []
        for updates in spike_updates.values():
            for a in updates:
                target = a.get_variable().get_complete_name()
                if "__X__" not in target and target in exact + integrated:
                    out.append(assignment(a))
        return out

    def integrate_numeric(call) -> list[str]:
        # NESTML's NEST target (PredefinedFunction_integrate_odes, GSLIntegrationStep,
        # GSLDifferentiationFunction): the analytic non-convolution states' new values
        # first; then GSL's RKF45 over every numeric state (all the ODE states), the
        # derivative 0 for those neither listed nor convolutions; every numeric state
        # written back; the analytic ones replaced by their exact values; their spike
        # updates. (Convolution states are set to their exact values after onReceive.)
        exact, integrated, active = exact_and_integrated(call)
        if lanes_on[0]:
            # first pass: the variant and the exact values; the integration is the second
            # pass (every cell of the run, side by side), the rest the third
            lines = [f"variant_[i] = {len(variants)};"]
            post = []
            for e, v in enumerate(exact):
                slot = len(convolutions) + e
                lines.append(f"keep[{slot}] = {step.print(update_expressions[v])};")
                post.append(f"{step.resolve(v)[0]} = keep[{slot}];")
            m.kept = max(m.kept, len(convolutions) + len(exact))
            variants.append((active, post + numeric_spike_updates(exact, integrated)))
            return lines
        lines = ["{"]
        for v in exact:
            lines.append(f"    const double next_{v} = {step.print(update_expressions[v])};")
        lines.append("    ode_y ys = s.ode;")
        lines.append("    const bool integrated = integrator.advance(")
        lines.append("        [&](const ode_y& y, ode_y& f) {")
        numeric_y[0] = True
        try:
            for k, v in enumerate(numeric):
                rhs = step.print(numeric_update_expressions[v]) if active[k] else "0.0"
                lines.append(f"            f[{k}] = {rhs};")
        finally:
            numeric_y[0] = False
        lines.append("        },")
        lines.append("        ys, h_, s.ode_substep);")
        lines.append("    check_integration(integrated, ys, gids_[i], n);")
        lines.append("    s.ode = ys;")
        for v in exact:
            lines.append(f"    {step.resolve(v)[0]} = next_{v};")
        lines += ["    " + line for line in numeric_spike_updates(exact, integrated)]
        lines.append("}")
        return lines

    def statements(body, indent: str = "") -> list[str]:
        out = []
        for stmt in body.get_stmts():
            if stmt.is_small_stmt():
                small = stmt.small_stmt if hasattr(stmt, "small_stmt") else stmt.get_small_stmt()
                out.extend(indent + line for line in small_statement(small))
            else:
                compound = (
                    stmt.compound_stmt
                    if hasattr(stmt, "compound_stmt")
                    else stmt.get_compound_stmt()
                )
                out.extend(indent + line for line in compound_statement(compound))
        return out

    def small_statement(small) -> list[str]:
        if small.is_assignment():
            return [assignment(small.get_assignment())]
        if small.is_declaration():
            decl = small.get_declaration()
            kind = _type_kind(decl.get_data_type())
            ctype = {"real": "double", "integer": "long", "boolean": "bool"}[kind]
            lines = []
            for variable in decl.get_variables():
                locals_.add(variable.get_name())
                value = (
                    step.print(decl.get_expression()) if decl.get_expression() is not None else "0"
                )
                lines.append(f"{ctype} l_{variable.get_name()} = {value};")
            return lines
        if small.is_function_call():
            call = small.get_function_call()
            name = call.get_name()
            if name == "emit_spike":
                if call.get_args():
                    raise Unsupported("emit_spike() with arguments")
                return ["out.emit(first_ + i, n);"]
            if name == "integrate_odes":
                return integrate_numeric(call) if numeric else integrate(call)
            return [step.function_call(call) + ";"]
        raise Unsupported("return statements outside functions")

    def compound_statement(compound) -> list[str]:
        if compound.is_if_stmt():
            s = compound.get_if_stmt()
            clause = s.get_if_clause()
            out = [f"if ({step.print(clause.get_condition())}) {{"]
            out += statements(clause.get_stmts_body(), "    ")
            for elif_clause in s.get_elif_clauses():
                out.append(f"}} else if ({step.print(elif_clause.get_condition())}) {{")
                out += statements(elif_clause.get_stmts_body(), "    ")
            if s.get_else_clause() is not None:
                out.append("} else {")
                out += statements(s.get_else_clause().get_stmts_body(), "    ")
            out.append("}")
            return out
        if compound.is_while_stmt():
            s = compound.get_while_stmt()
            return [
                f"while ({step.print(s.get_condition())}) {{",
                *statements(s.get_stmts_body(), "    "),
                "}",
            ]
        raise Unsupported("for loops")

    # Whether the cells can be integrated side by side: the update block ends in an
    # integrate_odes() call on every path (nothing of it runs after the integration), no
    # random functions (their draws would be split over two passes), and every
    # right-hand side reads the numeric states, parameters, internals and the current
    # only, with operations the lanes have (lanes_rhs).
    update_blocks = model.get_update_blocks()
    if (
        numeric
        and len(update_blocks) == 1
        and _ends_in_integration(update_blocks[0].get_stmts_body())
        and not any(
            "random_" in str(b)
            for b in update_blocks + model.get_on_receive_blocks() + model.get_on_condition_blocks()
        )
    ):
        lanes_printer = LanesPrinter(
            resolver(lambda k: {"parameter": "p", "internal": "q", "state": "s"}[k]), hoist
        )
        numeric_y[0] = "lanes"
        try:
            m.lanes_rhs = [lanes_printer.print(numeric_update_expressions[v]) for v in numeric]
            m.lanes = True
        except (NotLanes, Unsupported):
            m.lanes_rhs = []
        finally:
            numeric_y[0] = False

    on_receive = {}
    for block in model.get_on_receive_blocks():
        port = block.get_port_name()
        if port not in port_names:
            raise Unsupported(f"onReceive for the port {port}")
        on_receive.setdefault(port, []).append(block)
    for port in m.spike_ports:
        blocks = on_receive.get(port.name, [])
        port.flagged = not all(_adds_a_multiple_of(b.get_stmts_body(), port.name, step) for b in blocks)

    def rest_of_step() -> list[str]:
        """The step after the update block: onReceive, convolutions' spikes, onCondition."""
        out = []
        flagged = {port.name: port.flagged for port in m.spike_ports}
        for block in model.get_on_receive_blocks():  # in the model's order
            port = block.get_port_name()
            if flagged[port]:
                out.append(f"if (got_{port}) {{")
                out += statements(block.get_stmts_body(), "    ")
                out.append("}")
            else:
                out += statements(block.get_stmts_body())
        for j, v in enumerate(convolutions):
            out.append(f"{step.resolve(v)[0]} = {f'keep[{j}]' if m.lanes else f'next_{v}'};")
        for updates in spike_updates.values():
            for a in updates:
                if "__X__" in a.get_variable().get_complete_name():
                    out.append(assignment(a))
        for block in model.get_on_condition_blocks():
            out.append(f"if ({step.print(block.get_cond_expr())}) {{")
            out += statements(block.get_stmts_body(), "    ")
            out.append("}")
        return out

    lines = m.step_lines
    if m.lanes:
        lanes_on[0] = True
        m.kept = len(convolutions)
        for j, v in enumerate(convolutions):
            m.pre_lines.append(f"keep[{j}] = {step.print(update_expressions[v])};")
        m.pre_lines += statements(update_blocks[0].get_stmts_body())
        lanes_on[0] = False
        masks = [active for active, _post in variants]
        m.masked = [k for k in range(len(numeric)) if not all(mask[k] for mask in masks)]
        m.variant_masks = [[mask[k] for k in m.masked] for mask in masks]
        lines.append("switch (variant_[i]) {")
        for k, (_active, post) in enumerate(variants):
            lines.append(f"case {k}:")
            lines += ["    " + line for line in post]
            lines.append("    break;")
        lines.append("}")
        lines += rest_of_step()
    else:

        def whole_step() -> list[str]:
            out = [f"const double next_{v} = {step.print(update_expressions[v])};" for v in convolutions]
            for block in update_blocks:
                out += statements(block.get_stmts_body())
            return out + rest_of_step()

        lines += whole_step()
        if m.current_port:
            # a step without a current (the common case): its terms left out, not added as 0
            step.zero = frozenset({"stim"})
            try:
                m.step_lines_without_current = whole_step()
            finally:
                step.zero = frozenset()
            if m.step_lines_without_current == m.step_lines:
                m.step_lines_without_current = []

    # The entry's sentences.
    if m.port_mode == "pair":
        a, b = m.spike_ports
        receptors = f"spikes: weight >= 0 into {a.name}, < 0 into {b.name} (as -weight)"
    elif m.port_mode == "single":
        receptors = f"spikes: every weight into {m.spike_ports[0].name}, its sign kept"
    elif m.port_mode == "ports":
        numbered = ", ".join(f"{k} {p.name}" for k, p in enumerate(m.spike_ports, start=1))
        receptors = f"spikes through receptor ports (a connection's receptor): {numbered}; each weight with its sign"
    else:
        receptors = "no spike input"
    if m.current_port:
        receptors += f"; currents into {m.current_port} (pA)"
    m.receptors = receptors
    if numeric:
        m.integration = (
            "NEST's Runge-Kutta-Fehlberg 4(5) with GSL's standard step control (gsl_abs_error_tol "
            "+ gsl_rel_error_tol |y| per sub-step), as NESTML's NEST target, for "
            + ", ".join(numeric)
            + ("; convolutions by ODE-toolbox's exact propagators" if convolutions else "")
        )
    m.description = f"NESTML model {name} ({Path(source).name}), generated by spikex with NESTML {NESTML_VERSION}"
    return m


def _statement_parts(stmt):
    if stmt.is_small_stmt():
        return stmt.small_stmt if hasattr(stmt, "small_stmt") else stmt.get_small_stmt(), None
    return None, stmt.compound_stmt if hasattr(stmt, "compound_stmt") else stmt.get_compound_stmt()


def _adds_a_multiple_of(body, port: str, printer: ExpressionPrinter) -> bool:
    """Whether an onReceive block only adds (+=, -=) products of `port`'s input and
    constants (parameters, internals, numbers): run without a spike, it adds 0."""
    for stmt in body.get_stmts():
        if not stmt.is_small_stmt():
            return False
        small = stmt.small_stmt if hasattr(stmt, "small_stmt") else stmt.get_small_stmt()
        if not small.is_assignment():
            return False
        a = small.get_assignment()
        if not (a.is_compound_sum or a.is_compound_minus):
            return False
        if not _multiple_of(a.get_expression(), port, printer):
            return False
    return True


def _multiple_of(node, port: str, printer: ExpressionPrinter) -> bool:
    """`node` is port x constants (a product, or a quotient with the port above the line)."""
    from pynestml.meta_model.ast_simple_expression import ASTSimpleExpression

    if isinstance(node, ASTSimpleExpression):
        return node.is_variable() and node.get_variable().get_complete_name() == port
    if node.is_encapsulated:
        return _multiple_of(node.get_expression(), port, printer)
    if node.is_compound_expression() and type(node.get_binary_operator()).__name__ == "ASTArithmeticOperator":
        op, lhs, rhs = node.get_binary_operator(), node.get_lhs(), node.get_rhs()
        if op.is_times_op:
            return (_multiple_of(lhs, port, printer) and printer._constant(rhs)) or (
                _multiple_of(rhs, port, printer) and printer._constant(lhs)
            )
        if op.is_div_op:
            return _multiple_of(lhs, port, printer) and printer._constant(rhs)
    return False


def _ends_in_integration(body) -> bool:
    """Whether every path through a block ends in an integrate_odes() call and none has
    one before its end (the cells' integrations can then be one pass of their own)."""
    stmts = body.get_stmts()
    if not stmts or any("integrate_odes" in str(s) for s in stmts[:-1]):
        return False
    small, compound = _statement_parts(stmts[-1])
    if small is not None:
        return small.is_function_call() and small.get_function_call().get_name() == "integrate_odes"
    if not compound.is_if_stmt():
        return False
    s = compound.get_if_stmt()
    if s.get_else_clause() is None:
        return False
    bodies = [s.get_if_clause().get_stmts_body()]
    bodies += [c.get_stmts_body() for c in s.get_elif_clauses()]
    bodies.append(s.get_else_clause().get_stmts_body())
    return all(_ends_in_integration(b) for b in bodies)


def _port_factor(model, name: str) -> Fraction:
    """A spike port's value is a weight per second (NESTML 9): its factor to NEST's 1/ms."""
    symbol = model.get_scope().resolve_to_symbol(name, _variable_kind())
    return unit_factor(symbol.get_type_symbol()) if symbol is not None else Fraction(1)


def _continuous_factor(model, name: str) -> Fraction:
    symbol = model.get_scope().resolve_to_symbol(name, _variable_kind())
    return unit_factor(symbol.get_type_symbol()) if symbol is not None else Fraction(1)


def _variable_kind():
    from pynestml.symbols.symbol import SymbolKind

    return SymbolKind.VARIABLE


def generate(path: str | os.PathLike, spikex_version: str) -> tuple[str, str]:
    """The C++ of the model in `path`: (model name, source text).

    Raises NestmlError (NESTML refused it) or UnsupportedFeature (naming the feature).
    """
    import jinja2
    import pynestml

    path = Path(path).resolve()
    model, metadata, namespace = analyse(path)
    try:
        m = build_model(model, metadata, namespace, str(path))
    except Unsupported as what:
        raise UnsupportedFeature(
            f"{path}: model {model.get_name()} uses {what}, which spikex's NESTML generator does not support yet"
        ) from None
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)),
        keep_trailing_newline=True,
        autoescape=False,
    )
    text = env.get_template("model.cpp.jinja2").render(
        m=m, spikex_version=spikex_version, nestml_version=pynestml.__version__
    )
    return m.name, re.sub(r"[ \t]+\n", "\n", text)
