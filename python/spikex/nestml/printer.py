"""C++ for NESTML expressions and statements, as spikex's generated models use them.

Values are held in NEST's units (mV, ms, pA, pF, nS, ... ``NESTUnitConverter``'s choice,
the units the model's parameter table names), so a literal ``2 s`` is ``2000.0``. A unit
conversion factor is carried through products and quotients as an exact fraction and
written once where the value is used: ``unit_psc * exc_spikes * 1 s`` (a spike port's
value is a weight per second, its factor 1/1000; ``1 s`` brings 1000) is
``q.unit_psc * in_exc_spikes * 1.0`` with no rounding from the conversions.

A construct the generator does not support raises :class:`Unsupported`, naming it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from fractions import Fraction

from pynestml.codegeneration.nest_unit_converter import NESTUnitConverter
from pynestml.meta_model.ast_expression import ASTExpression
from pynestml.meta_model.ast_simple_expression import ASTSimpleExpression
from pynestml.symbols.predefined_units import PredefinedUnits
from pynestml.symbols.unit_type_symbol import UnitTypeSymbol


class Unsupported(Exception):
    """A NESTML feature spikex's generator does not support (the message names it)."""


def exact(x: float) -> Fraction:
    """A conversion factor as the fraction its shortest decimal says (0.001 -> 1/1000)."""
    return Fraction(repr(float(x)))


def unit_factor(type_symbol) -> Fraction:
    """The factor from a NESTML type's unit to NEST's unit of the same dimension."""
    if isinstance(type_symbol, UnitTypeSymbol):
        return exact(NESTUnitConverter.get_factor(type_symbol.unit.unit))
    return Fraction(1)


def number(x: float | Fraction) -> str:
    """A C++ double literal that reads back as ``x`` (the nearest double to a fraction)."""
    value = float(x)
    if not math.isfinite(value):
        raise Unsupported(f"the number {value}")
    text = repr(value)
    return text if ("." in text or "e" in text or "inf" in text) else text + ".0"


# NESTML's predefined mathematical functions and their C++ (one argument unless noted).
MATH = {
    "exp": "std::exp",
    "expm1": "std::expm1",
    "ln": "std::log",
    "log10": "std::log10",
    "cos": "std::cos",
    "sin": "std::sin",
    "tan": "std::tan",
    "cosh": "std::cosh",
    "sinh": "std::sinh",
    "tanh": "std::tanh",
    "erf": "std::erf",
    "erfc": "std::erfc",
    "abs": "std::abs",
    "ceil": "std::ceil",
    "floor": "std::floor",
    "round": "std::round",
    "pow": "std::pow",
    "max": "std::max",
    "min": "std::min",
}
RANDOM = ("random_normal", "random_uniform", "random_poisson")


def _has_operation(code: str) -> bool:
    """More than one name or number: worth computing once."""
    return any(c in code for c in "+-*/(") and not _is_plain_number(code)


_CONSTANT_TOKENS = re.compile(
    r"\b[pq]\.\w+|std::numeric_limits<double>::infinity\(\)|std::\w+(<double>)?|static_cast<long>"
    r"|\b\d+(\.\d*)?(e[-+]?\d+)?\b"
)


def _reads_constants_only(code: str) -> bool:
    """The printed C++ reads parameters (p.), internals (q.), numbers and std:: functions
    only (NESTML's get_variables() does not see a function call's arguments: a state
    inside min(V_m, V_peak) must keep the expression out of the per-set constants)."""
    return re.search(r"[A-Za-z_]", _CONSTANT_TOKENS.sub("", code)) is None


def _is_plain_number(code: str) -> bool:
    try:
        float(code)
        return True
    except ValueError:
        return False


class ExpressionPrinter:
    """Prints NESTML expressions as C++.

    Parameters
    ----------
    resolve : callable
        ``resolve(name) -> (cpp, factor)``: a variable's C++ and the factor from its value
        there to NEST's unit of its NESTML type (1 except for input ports).
    hoist : callable, optional
        ``hoist(cpp) -> cpp``: where a subexpression of parameters, internals and numbers
        only (constant for a parameter set) goes, e.g. into a per-set constant ``q.k_3``;
        the same operations in the same order, computed once per set instead of per cell
        and step, so the same bits.
    """

    def __init__(self, resolve: Callable[[str], tuple[str, Fraction]], hoist=None, random=None,
                 functions: dict | None = None):  # fmt: skip
        self.resolve = resolve
        self.hoist = hoist
        # random(name) -> the C++ call's first arguments (the cell's stream), or None where
        # random functions are not allowed (initial values, internals)
        self.random = random
        # The model's user-defined functions by name (ASTFunction): a call is written in
        # place (user_function).
        self.functions = functions or {}
        # Variables (their C++) known to be 0 where this printer's code runs (the current
        # input in a step without one): a term they multiply is left out of a sum. Only the
        # sign of a zero sum can differ (x + 0 * y is x for finite y).
        self.zero: frozenset[str] = frozenset()

    # The printed value of an expression, in NEST's unit of its type.
    def print(self, node) -> str:
        code, factor = self._print(node)
        return self._apply(code, factor)

    @staticmethod
    def _apply(code: str, factor: Fraction) -> str:
        if factor == 1:
            return code
        try:  # a literal: converted here, exactly rounded
            return number(exact(float(code)) * factor)
        except ValueError:
            return f"({number(factor)} * {code})"

    def _print(self, node) -> tuple[str, Fraction]:
        code, factor = self._print_node(node)
        conversion = node.get_implicit_conversion_factor()
        if conversion is not None and conversion != 1:
            factor *= exact(conversion)
        if (
            self.hoist is not None
            and factor == 1
            and _has_operation(code)
            and self._constant(node)
            and _reads_constants_only(code)
        ):
            return self.hoist(code), factor
        return code, factor

    def _constant(self, node) -> bool:
        """Whether `node` reads parameters, internals and numbers only (pure functions)."""
        try:
            names = [v.get_complete_name() for v in node.get_variables()]
            calls = [c.get_name() for c in node.get_function_calls()]
        except AttributeError:
            return False
        if any(
            name not in MATH and name not in ("resolution", "timestep", "steps") for name in calls
        ):  # random too
            return False
        for name in names:
            if name in ("e", "pi"):
                continue
            try:
                code, _ = self.resolve(name)
            except Unsupported:
                return False
            if not code.startswith(("p.", "q.")):
                return False
        return True

    def _print_node(self, node) -> tuple[str, Fraction]:
        if isinstance(node, ASTSimpleExpression):
            return self._simple(node)
        if not isinstance(node, ASTExpression):
            raise Unsupported(f"the expression {node}")
        if node.is_unary_operator():
            code, factor = self._print(node.get_expression())
            op = node.get_unary_operator()
            if op.is_unary_minus:
                return f"(-{code})", factor
            if op.is_unary_plus:
                return code, factor
            raise Unsupported("the bitwise operator ~")
        if node.is_encapsulated:
            code, factor = self._print(node.get_expression())
            return f"({code})", factor
        if node.is_logical_not:
            return f"(!{self.print(node.get_expression())})", Fraction(1)
        if node.is_ternary_operator():
            cond = self.print(node.get_condition())
            return (
                f"({cond} ? {self.print(node.get_if_true())} : {self.print(node.get_if_not())})",
                Fraction(1),
            )
        if node.is_compound_expression():
            return self._binary(node)
        if node.is_expression():
            return self._print(node.get_expression())
        raise Unsupported(f"the expression {node}")

    def _binary(self, node) -> tuple[str, Fraction]:
        op = node.get_binary_operator()
        lhs, rhs = node.get_lhs(), node.get_rhs()
        name = type(op).__name__
        if name == "ASTArithmeticOperator":
            if op.is_times_op:
                (a, fa), (b, fb) = self._print(lhs), self._print(rhs)
                return f"{a} * {b}", fa * fb
            if op.is_div_op:
                (a, fa), (b, fb) = self._print(lhs), self._print(rhs)
                return f"{a} / {b}", fa / fb
            if op.is_pow_op:
                return f"std::pow({self.print(lhs)}, {self.print(rhs)})", Fraction(1)
            if op.is_plus_op or op.is_minus_op:
                symbol = "+" if op.is_plus_op else "-"
                if self.zero and self.is_zero(rhs):
                    return self.print(lhs), Fraction(1)
                if self.zero and self.is_zero(lhs):
                    return (self.print(rhs), Fraction(1)) if op.is_plus_op else (f"(-{self.print(rhs)})", Fraction(1))
                return f"{self.print(lhs)} {symbol} {self.print(rhs)}", Fraction(1)
            if op.is_modulo_op:
                return f"std::fmod({self.print(lhs)}, {self.print(rhs)})", Fraction(1)
            raise Unsupported("integer division (//)")
        if name == "ASTComparisonOperator":
            text = {"is_lt": "<", "is_le": "<=", "is_eq": "==", "is_ne": "!=", "is_ne2": "!=",
                    "is_ge": ">=", "is_gt": ">"}  # fmt: skip
            for attr, symbol in text.items():
                if getattr(op, attr):
                    return f"{self.print(lhs)} {symbol} {self.print(rhs)}", Fraction(1)
        if name == "ASTLogicalOperator":
            symbol = "&&" if op.is_logical_and else "||"
            return f"({self.print(lhs)} {symbol} {self.print(rhs)})", Fraction(1)
        raise Unsupported("bitwise operators")

    def is_zero(self, node) -> bool:
        """Whether `node` is a product (or quotient) with a factor in ``zero``."""
        if isinstance(node, ASTSimpleExpression):
            if not node.is_variable() or node.get_variable().get_vector_parameter() is not None:
                return False
            try:
                return self.resolve(node.get_variable().get_complete_name())[0] in self.zero
            except Unsupported:
                return False
        if not isinstance(node, ASTExpression):
            return False
        if node.is_encapsulated or (node.is_unary_operator() and node.get_unary_operator().is_unary_minus):
            return self.is_zero(node.get_expression())
        if node.is_compound_expression() and type(node.get_binary_operator()).__name__ == "ASTArithmeticOperator":
            op = node.get_binary_operator()
            if op.is_times_op:
                return self.is_zero(node.get_lhs()) or self.is_zero(node.get_rhs())
            if op.is_div_op:
                return self.is_zero(node.get_lhs())
            if op.is_plus_op or op.is_minus_op:
                return self.is_zero(node.get_lhs()) and self.is_zero(node.get_rhs())
        if node.is_expression() and not node.is_compound_expression() and not node.is_ternary_operator() \
                and not node.is_logical_not and not node.is_unary_operator():
            return self.is_zero(node.get_expression())
        return False

    def _simple(self, node: ASTSimpleExpression) -> tuple[str, Fraction]:
        if node.is_numeric_literal_with_unit():
            factor = None
            variable = node.get_variable()
            unit = PredefinedUnits.get_unit(variable.get_complete_name()) if variable else None
            if unit is not None:
                factor = exact(NESTUnitConverter.get_factor(unit.get_unit()))
            elif isinstance(getattr(node, "type", None), UnitTypeSymbol):
                factor = unit_factor(node.type)
            if factor is None:
                raise Unsupported(f"the unit of {node}")
            # The factor stays with the literal through products (1 s * spikes: exact).
            return number(node.get_numeric_literal()), factor
        if node.is_inf_literal:
            return "std::numeric_limits<double>::infinity()", Fraction(1)
        if node.is_numeric_literal():
            return number(node.get_numeric_literal()), Fraction(1)
        if node.is_boolean_true:
            return "true", Fraction(1)
        if node.is_boolean_false:
            return "false", Fraction(1)
        if node.is_string():
            raise Unsupported("strings")
        if node.is_delay_variable():
            raise Unsupported("delay differential equations (delayed variables)")
        if node.is_variable():
            variable = node.get_variable()
            if variable.get_vector_parameter() is not None:
                raise Unsupported("vector variables")
            name = variable.get_complete_name()
            if name == "e":
                return "2.718281828459045", Fraction(1)
            if name == "pi":
                return "3.141592653589793", Fraction(1)
            return self.resolve(name)
        if node.is_function_call():
            return self.function_call(node.get_function_call()), Fraction(1)
        raise Unsupported(f"the expression {node}")

    def function_call(self, call) -> str:
        name = call.get_name()
        if name in ("print", "println", "info", "warning"):
            raise Unsupported(f"{name}()")
        args = [self.print(a) for a in call.get_args()]
        if name in RANDOM:
            if self.random is None:
                raise Unsupported(
                    f"random functions ({name}) outside the update, onReceive and onCondition blocks"
                )
            return f"{name}({', '.join([self.random(name), *args])})"
        if name in ("resolution", "timestep"):
            return self.resolve("__h")[0]
        if name == "steps":
            return f"static_cast<long>(std::llround({args[0]} / {self.resolve('__h')[0]}))"
        if name == "clip":
            return f"std::min(std::max({args[0]}, {args[1]}), {args[2]})"
        if name in ("max", "min"):
            return f"{MATH[name]}<double>({args[0]}, {args[1]})"
        if name in MATH:
            return f"{MATH[name]}({', '.join(args)})"
        if name in ("emit_spike", "integrate_odes"):
            raise Unsupported(f"{name}() inside an expression")
        if name in ("print", "println", "info", "warning"):
            raise Unsupported(f"{name}()")
        if name == "deliver_spike":
            raise Unsupported("synapse models (deliver_spike)")
        if name in self.functions:
            return self.user_function(self.functions[name], args)
        raise Unsupported(f"the function {name}")

    def user_function(self, function, args: list[str]) -> str:
        """A call of a user-defined function, written in place as a lambda called at once:
        its parameters and local declarations as C++ locals (values in NEST's units of
        their types, as every value here), its return expression printed like any other;
        names that are neither read the model's variables as the caller does. The same
        operations in the same order as NESTML's NEST target's member function."""
        name = function.get_name()
        params = function.get_parameters()
        if len(args) != len(params):
            raise Unsupported(f"the call of {name} with {len(args)} arguments ({len(params)} declared)")
        names = {p.get_name(): f"f_{p.get_name()}" for p in params}
        outer = self.resolve

        def resolve(var: str) -> tuple[str, Fraction]:
            return (names[var], Fraction(1)) if var in names else outer(var)

        body = ExpressionPrinter(resolve, None, self.random, self.functions)
        lines = []
        for stmt in function.get_stmts_body().get_stmts():
            small = stmt.small_stmt if stmt.is_small_stmt() else None
            if small is not None and small.is_declaration():
                decl = small.get_declaration()
                for variable in decl.get_variables():
                    value = body.print(decl.get_expression())  # before the name shadows anything
                    names[variable.get_name()] = f"f_{variable.get_name()}"
                    lines.append(f"const {_ctype(decl.get_data_type())} f_{variable.get_name()} = {value};")
            elif small is not None and small.is_return_stmt() and small.get_return_stmt().has_expression():
                lines.append(f"return {body.print(small.get_return_stmt().get_expression())};")
            else:
                raise Unsupported(f"statements other than declarations and return in the function {name}")
        signature = ", ".join(f"const {_ctype(p.get_data_type())} f_{p.get_name()}" for p in params)
        return f"[&]({signature}) {{ {' '.join(lines)} }}({', '.join(args)})"


def _ctype(data_type) -> str:
    if data_type.is_boolean:
        return "bool"
    return "long" if data_type.is_integer else "double"


class NotLanes(Exception):
    """A right-hand side the lanes printer cannot write generic in the lane count."""


class LanesPrinter(ExpressionPrinter):
    """A right-hand side for ``advance_cells``: generic in the lanes ``L`` of its cells
    (ode/lanes.hpp), with each lane's operations those of the scalar print: arithmetic as
    is (lanes and doubles mix), ``exp`` as ``ode::exp`` (std::exp's bits),
    ``min``/``max`` with std::min's and std::max's rules, other functions per lane
    (std:: of each lane). Comparisons, logic and conditionals raise :class:`NotLanes`."""

    def _print_node(self, node):
        if isinstance(node, ASTExpression):
            if node.is_ternary_operator() or node.is_logical_not:
                raise NotLanes("a condition")
            if node.is_compound_expression():
                op = node.get_binary_operator()
                if type(op).__name__ != "ASTArithmeticOperator":
                    raise NotLanes("a comparison")
                if op.is_pow_op or op.is_modulo_op:
                    fn = "std::pow" if op.is_pow_op else "std::fmod"
                    a, b = self.print(node.get_lhs()), self.print(node.get_rhs())
                    return self._each2(fn, a, b), Fraction(1)
        return super()._print_node(node)

    @staticmethod
    def _each2(fn: str, a: str, b: str) -> str:
        return (
            f"lanes_each2<L>({a}, {b}, [](double x, double z) __attribute__((always_inline)) "
            f"{{ return {fn}(x, z); }})"
        )

    def function_call(self, call) -> str:
        name = call.get_name()
        if name in RANDOM or name in ("emit_spike", "integrate_odes", "steps", "clip"):
            raise NotLanes(name)
        if name in ("resolution", "timestep"):
            return super().function_call(call)
        args = [self.print(a) for a in call.get_args()]
        if name == "exp":
            return f"ode::exp(as_lanes<L>({args[0]}))"
        if name in ("min", "max"):
            return f"lanes_{name}<L>({args[0]}, {args[1]})"
        if name == "pow":
            return self._each2("std::pow", args[0], args[1])
        if name in MATH and len(args) == 1:
            return (
                f"lanes_each<L>({args[0]}, [](double x) __attribute__((always_inline)) "
                f"{{ return {MATH[name]}(x); }})"
            )
        raise NotLanes(name)
