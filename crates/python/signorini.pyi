"""signorini: solvers for unilateral contact mechanics (Rust, via PyO3).

Every LCP solution carries one solver-independent merit, recomputed from the returned z:
``residual = ||min(z, w)||_2 / ||q||_2`` with ``w = M z + q`` (the measure Siconos numerics
reports; no division when ``||q||_2`` is below machine epsilon). Negative answers carry a
checked certificate. The GIL is released during every solve, assembly and simulation; a bad
argument raises ``ValueError`` with the command-line tool's one-line message, and an internal
error (a panic in the Rust code) raises ``RuntimeError``.
"""

import os
from typing import Any, Dict, List, Literal, Optional, Tuple, TypedDict, Union

import numpy as np
import numpy.typing as npt
import scipy.sparse

__version__: str

_Vector = npt.ArrayLike
_Matrix = Union[npt.ArrayLike, scipy.sparse.spmatrix, Any]
_Path = Union[str, "os.PathLike[str]"]
_Float = npt.NDArray[np.float64]

Status = Literal[
    "solved",
    "infeasible",
    "no_solution",
    "ray_termination",
    "max_iterations",
    "time_limit",
    "stalled",
    "numerical_failure",
]

class FarkasCertificate(TypedDict):
    """y >= 0, M'y <= 0, q'y < 0: no z >= 0 has M z + q >= 0 (Farkas' lemma)."""

    kind: Literal["farkas"]
    y: _Float

class EnumerationCertificate(TypedDict):
    """Every complementary index set was examined (``enum``) and none is feasible."""

    kind: Literal["enumeration"]
    index_sets: int

class Solution:
    """The result of :func:`solve`; every figure is recomputed from z by the driver.

    ``residual = ||min(z, w)||_2 / ||q||_2`` with ``w = M z + q``; ``complementarity =
    max_i |z_i w_i|``.
    """

    status: Status
    solver: str
    z: _Float
    w: _Float
    residual: float
    residual_abs: float
    complementarity: float
    z_violation: float
    w_violation: float
    tol: float
    iterations: int
    pivots: Optional[int]
    matvecs: int
    factorizations: int
    solve_seconds: float
    certificate: Optional[Union[FarkasCertificate, EnumerationCertificate]]
    note: Optional[str]

class FcSolution:
    """The result of :func:`fc_solve`: r projected onto the cones, u = W r + q and the error
    recomputed from r.

    ``error = sqrt(sum_c |r_c - P_K_c(r_c - (u_c + mu_c |u_T,c| e_N))|^2) / ||q||_2`` (Siconos'
    ``fc3d_compute_error``; no division when ``||q||_2`` is below machine epsilon).
    """

    status: Status
    solver: str
    r: _Float
    u: _Float
    error: float
    tol: float
    iterations: int
    solve_seconds: float
    note: Optional[str]

def solve(
    M: _Matrix,
    q: _Vector,
    solver: str = "auto",
    tol: Optional[float] = None,
    max_iter: Optional[int] = None,
    time_limit: Optional[float] = None,
    warm_start: Optional[_Vector] = None,
    memory_limit: Optional[float] = None,
) -> Solution:
    """Solves LCP(M, q): find z >= 0 with w = M z + q >= 0 and z'w = 0.

    M is a numpy 2-D array (or anything numpy reads as one) or any scipy.sparse matrix, which
    stays sparse (indices of any integer dtype). ``solver`` is a spec string as on the command
    line (``"lemke"``, ``"pgs:omega=1.3"``). ``tol`` bounds the merit ``||min(z, w)||_2 /
    ||q||_2`` (0 < tol <= 1e-2; default: the solver's own), ``time_limit`` is in seconds and
    ``memory_limit`` in GiB (budget of each dense array a solver sizes from the problem,
    default 2).
    """

def read(
    path: _Path, format: Optional[str] = None, max_input_size: Optional[float] = None
) -> Tuple[Union[_Float, scipy.sparse.csr_matrix], _Float]:
    """Reads ``(M, q)`` from a ``.json``, ``.dat``, ``.mtx`` (or a folder of ``M.mtx`` +
    ``q.mtx``) or FCLIB ``.hdf5`` file; M is dense or a ``csr_matrix`` as the file stores it."""

def write(path: _Path, M: _Matrix, q: _Vector, format: Optional[str] = None) -> None:
    """Writes LCP(M, q) as ``.json``, ``.dat`` or ``.mtx`` (by extension, or ``format``)."""

class ParameterDoc(TypedDict):
    key: str
    default: str
    kind: str
    range: str
    doc: str

class SolverDoc(TypedDict):
    name: str
    problem: Literal["lcp", "fc"]
    summary: str
    parameters: List[ParameterDoc]

def solvers(problem: Optional[Literal["lcp", "fc"]] = None) -> List[SolverDoc]:
    """Every registered solver: name, problem (``"lcp"`` or ``"fc"``), summary (algorithm and
    the problem class it is for) and parameters with their defaults."""

def contact(
    scene: Union[_Path, Dict[str, Any]],
    level: Literal["acceleration", "velocity", "position"] = "acceleration",
    step: Optional[float] = None,
    friction_directions: Optional[int] = None,
    solver: str = "auto",
) -> Dict[str, Any]:
    """Detects a scene's contacts, assembles w = W z + b and solves it. Keys: ``level``,
    ``n_contacts``, ``contacts``, ``W`` (``scipy.sparse.csr_matrix``), ``b``, ``status``,
    ``solver``, ``residual``, ``reactions`` and, where they apply, ``sliding_speeds``,
    ``normal_accelerations``, ``normal_velocities``."""

def fc_solve(
    W: _Matrix,
    q: _Vector,
    mu: _Vector,
    dimension: int = 3,
    solver: str = "nsgs",
    tol: Optional[float] = None,
    max_iter: Optional[int] = None,
    time_limit: Optional[float] = None,
    warm_start: Optional[_Vector] = None,
) -> FcSolution:
    """Solves the frictional-contact problem u = W r + q with exact Coulomb cones, ``dimension``
    rows per contact (normal first) and one ``mu`` per contact."""

def fc_read(
    path: _Path, format: Optional[str] = None
) -> Tuple[Union[_Float, scipy.sparse.csr_matrix], _Float, _Float, int]:
    """Reads ``(W, q, mu, dimension)`` from a Siconos ``.dat``, ``signorini-fc/1`` ``.json`` or
    FCLIB ``.hdf5`` frictional-contact file."""

def simulate(
    scene: Union[_Path, Dict[str, Any]],
    scheme: str = "moreau-jean",
    *,
    t_end: float,
    step: Optional[float] = None,
    solver: str = "auto",
    theta: Optional[float] = None,
    friction_directions: Optional[int] = None,
    max_steps: Optional[int] = None,
    time_limit: Optional[float] = None,
    memory_limit: Optional[float] = None,
    candidate_distance: Optional[float] = None,
    warm_start: bool = False,
) -> Dict[str, Any]:
    """Simulates a scene to ``t_end``. Keys: one numpy array per CSV column of ``signorini
    simulate --out`` (``t``, ``<body>.<coordinate>``), ``impacts`` (list of dicts),
    ``impacts_total``, ``steps``, ``lcp_solves``, ``solver_failures``,
    ``solver_failures_total``, ``end`` and ``notes``."""
