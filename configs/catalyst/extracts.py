# script-version: 2
# Catalyst script: parallel VTK PolyData extracts under OUT/catalyst/:
#   agents_STEP.pvtp  every call, one piece per rank (agents_STEP/*.vtp):
#                     points and the arrays velocity, speed, id, group,
#                     radius, state;
#   geometry.pvtp     once: walls, obstacles, exits, measurement areas and
#                     lines (cell data kind, kind_name, name).
# Run: throng run SCENARIO --catalyst configs/catalyst/extracts.py
# Open the agents_*.pvtp series in ParaView (docs/insitu.md). No X server
# needed.
from paraview.simple import *
from paraview import catalyst

# the channels throng hands over (the names must match)
agents = TrivialProducer(registrationName='agents')
geometry = TrivialProducer(registrationName='geometry')

agents_vtp = CreateExtractor('VTP', agents, registrationName='agents_vtp')
agents_vtp.Writer.FileName = 'agents_{timestep:06d}.pvtp'
# CompressorType 'ZLib' makes the files about 2x smaller and the calls slower

options = catalyst.Options()
options.ExtractsOutputDirectory = 'catalyst'
options.GlobalTrigger = 'TimeStep'

_geometry_written = False


def catalyst_execute(info):
    global _geometry_written
    if not _geometry_written:  # the geometry does not change: once
        SaveData(options.ExtractsOutputDirectory + '/geometry.pvtp', proxy=geometry)
        _geometry_written = True
