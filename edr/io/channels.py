"""Channel names: cleaning, and the default choice of ECG and respiration channels.

Names are compared after :func:`clean_name` (surrounding blanks and trailing
commas removed: BIDMC headers spell ``II,`` and ``RESP,``) and case-folding.
Prefixes such as ``ECG`` / ``EKG`` / ``Lead`` are ignored when ranking leads, so
``"ECG II"`` and ``"Lead II"`` rank as ``II``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from edr.errors import ChannelError

__all__ = [
    "ECG_PRIORITY",
    "RESP_PRIORITY",
    "clean_name",
    "is_ecg_name",
    "is_resp_name",
    "find_channel",
    "choose_ecg",
    "ecg_channels",
    "choose_resp",
]

#: ECG channel names in order of preference for the default lead.
ECG_PRIORITY: tuple[str, ...] = (
    "II", "MLII", "ECG", "ECG1", "EKG", "V",
    "V1", "V2", "V3", "V4", "V5", "V6",
    "I", "MLI", "III", "MLIII", "MCL1", "MCL", "AVR", "AVL", "AVF",
    "ECG2", "ECG3", "ML5", "CM5", "CC5",
)

#: Respiration reference names in order of preference: impedance pneumography and effort belts
#: (thorax, then their sum, then abdomen) first, then flow, then CO2.
RESP_PRIORITY: tuple[str, ...] = (
    "RESP", "RSP", "RESPIRATION", "IP", "RESP (CHEST)", "RESP C", "THOR RES", "THORAX", "THOR",
    "CHEST", "RIP THORAX", "EFFORT THO", "RESP (SUM)", "RIP SUM", "RESP (ABDOMEN)", "RESP A",
    "ABDO RES", "ABDO", "ABDOMEN", "ABD", "RIP ABDOMEN", "EFFORT ABD",
    "AIRFLOW", "FLOW", "RESP (NASAL)", "RESP N", "NASAL", "NASAL PRESSURE", "IMPEDANCE",
    "CO2", "ETCO2", "CAPNO",
)

_LEAD_PREFIX = re.compile(r"^((ECG|EKG|LEAD)[\s_\-:]+)+(?=\S)")
_LEAD_PATTERN = re.compile(
    r"^(I{1,3}|A?V[RLF]|V\d?|MLI{1,3}|ML\d|MCL\d?|CM\d|CC\d|(ECG|EKG)\d*)$"
)
_RESP_PATTERN = re.compile(
    r"^(RESP|RSP\b|THOR|ABD|CHEST|BELT|EFFORT|RIP\b|IP\b|IMPEDANCE|PNEUMO|AIRFLOW|FLOW|NASAL|"
    r"ORO-?NASAL|P?(ET)?CO2|CAPNO|THERM(ISTOR)?\b|AIRWAY|PAW\b|AWP\b|SPIRO)"
)


def clean_name(name: str) -> str:
    """Strip blanks and trailing commas from a channel name (``"RESP, "`` -> ``"RESP"``)."""
    return str(name).strip().rstrip(",").strip()


def _key(name: str) -> str:
    return clean_name(name).upper()


def _lead_key(name: str) -> str:
    return _LEAD_PREFIX.sub("", _key(name))


def is_ecg_name(name: str) -> bool:
    """True when ``name`` is an ECG lead name (II, MLII, ECG, ECG1, V5, MCL1, aVR, ...)."""
    key = _lead_key(name)
    return key in ECG_PRIORITY or bool(_LEAD_PATTERN.match(key)) or _key(name).startswith(("ECG",
                                                                                           "EKG"))


def is_resp_name(name: str) -> bool:
    """True when ``name`` is a respiration reference name: a name of :data:`RESP_PRIORITY`, or
    one starting with RESP, RSP, THOR, ABD, CHEST, BELT, EFFORT, RIP, IP, IMPEDANCE, PNEUMO,
    AIRFLOW, FLOW, NASAL, ORONASAL, CO2, ETCO2, PCO2, PETCO2, CAPNO, THERM or
    THERMISTOR (an oronasal thermistor), AIRWAY, PAW, AWP or SPIRO (case-insensitive; RSP, RIP,
    IP, THERM, PAW and AWP as whole words). A plethysmogram (PLETH, PPG) is no respiration.

    Examples
    --------
    >>> from edr.io.channels import is_resp_name
    >>> [is_resp_name(n) for n in ("RESP,", "CO2", "Thorax belt", "Therm", "PLETH", "Temp")]
    [True, True, True, True, False, False]
    """
    key = _key(name)
    return key in RESP_PRIORITY or bool(_RESP_PATTERN.match(key))


def find_channel(names: Sequence[str], wanted: str, *, source: str, kind: str = "channel") -> int:
    """Index of channel ``wanted`` in ``names`` (cleaned, case-insensitive); ``kind`` names what
    was asked for in the error message.

    Raises
    ------
    ChannelError
        When no channel matches; the message lists the valid names.
    """
    key = _key(wanted)
    for i, name in enumerate(names):
        if _key(name) == key:
            return i
    raise ChannelError(
        f"{kind} {wanted!r} not found in {source}; valid channels: "
        + ", ".join(clean_name(n) for n in names)
    )


def _rank(key: str, priority: Sequence[str]) -> int:
    return priority.index(key) if key in priority else len(priority)


def choose_ecg(names: Sequence[str], channel: str | None = None, *, source: str) -> int:
    """Index of the ECG channel: ``channel`` if given, else the best-ranked lead name.

    The ranking follows :data:`ECG_PRIORITY`; ECG-like names not in that list
    come after it, in file order.

    Raises
    ------
    ChannelError
        ``channel`` is not in the record, or no channel looks like an ECG lead
        (the message lists the channels found).
    """
    if channel is not None:
        return find_channel(names, channel, source=source)
    candidates = ecg_channels(names)
    if not candidates:
        raise ChannelError(
            f"no ECG channel in {source}; channels found: "
            + (", ".join(clean_name(n) for n in names) or "(none)")
            + "; pass channel=<name> to choose one"
        )
    return min(candidates, key=lambda i: (_rank(_lead_key(names[i]), ECG_PRIORITY), i))


def ecg_channels(names: Sequence[str]) -> list[int]:
    """Indices of every channel whose name is an ECG lead, in file order."""
    return [i for i, name in enumerate(names) if is_ecg_name(name)]


def choose_resp(names: Sequence[str], resp_channel: str | None = None, *,
                source: str) -> int | None:
    """Index of the respiration reference: ``resp_channel`` if given, else the best name, else None.

    Raises
    ------
    ChannelError
        ``resp_channel`` is given and not in the record.
    """
    if resp_channel is not None:
        return find_channel(names, resp_channel, source=source, kind="respiration channel")
    candidates = [i for i, name in enumerate(names) if is_resp_name(name)]
    if not candidates:
        return None
    return min(candidates, key=lambda i: (_rank(_key(names[i]), RESP_PRIORITY), i))
