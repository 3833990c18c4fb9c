package gameserver

const sysSchedSetattr, sysSchedGetattr = 314, 315
